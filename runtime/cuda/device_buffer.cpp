#include "runtime/cuda/device_buffer.h"

#include "runtime/cuda/cuda_status.h"

#include <cstdint>
#include <string>
#include <utility>

namespace hetplan::runtime::cuda {

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : m_data(std::exchange(other.m_data, nullptr))
    , m_bytes(std::exchange(other.m_bytes, 0))
{}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept
{
    if (this != &other) {
        release();
        m_data = std::exchange(other.m_data, nullptr);
        m_bytes = std::exchange(other.m_bytes, 0);
    }
    return *this;
}

DeviceBuffer::~DeviceBuffer()
{
    release();
}

void DeviceBuffer::release() noexcept
{
    if (m_data == nullptr)
        return;
    // A failed cudaFree has no caller to tell: it only fails after an earlier error (a fault, a
    // lost device), which the next checked call reports.
    static_cast<void>(cudaCall(cudaFree(m_data), "cudaFree of a device buffer"));
    m_data = nullptr;
    m_bytes = 0;
}

Status DeviceBuffer::reserve(std::size_t bytes, std::string_view what)
{
    if (bytes <= m_bytes)
        return okStatus();
    release();
    std::string call = "cudaMalloc of ";
    call += std::to_string(bytes);
    call += " bytes for ";
    call += what;
    if (Status s = cudaCall(cudaMalloc(&m_data, bytes), call); !s) {
        m_data = nullptr;
        return s;
    }
    m_bytes = bytes;
    return okStatus();
}

Status zeroDevice(void *device, std::size_t bytes, CUstream_st *stream)
{
    if (bytes == 0)
        return okStatus();
    return cudaCall(cudaMemsetAsync(device, 0, bytes, stream), "cudaMemsetAsync");
}

Status uploadNow(void *device, const void *host, std::size_t bytes)
{
    if (bytes == 0)
        return okStatus();
    return cudaCall(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice),
                    "cudaMemcpy host to device");
}

Status uploadNow(void *device, std::span<const float> host)
{
    return uploadNow(device, host.data(), host.size_bytes());
}

Status uploadNow(void *device, std::span<const Bf16> host)
{
    return uploadNow(device, host.data(), host.size_bytes());
}

Status uploadOn(void *device, const void *host, std::size_t bytes, CUstream_st *stream)
{
    if (bytes == 0)
        return okStatus();
    return cudaCall(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream),
                    "cudaMemcpyAsync host to device");
}

Status waitForDevice()
{
    return cudaCall(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

Status downloadAfter(void *host, const void *device, std::size_t bytes, CUstream_st *stream)
{
    if (bytes == 0)
        return okStatus();
    if (Status s = cudaCall(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream),
                            "cudaMemcpyAsync device to host");
        !s)
        return s;
    return cudaCall(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
}

Status copyOnDevice(void *to, const void *from, std::size_t bytes, CUstream_st *stream)
{
    if (bytes == 0)
        return okStatus();
    return cudaCall(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, stream),
                    "cudaMemcpyAsync device to device");
}

namespace {

Result<cudaMemPool_t> currentPool()
{
    int device = 0;
    if (Status s = cudaCall(cudaGetDevice(&device), "cudaGetDevice"); !s)
        return s.error();
    cudaMemPool_t pool = nullptr;
    if (Status s = cudaCall(cudaDeviceGetMemPool(&pool, device), "cudaDeviceGetMemPool"); !s)
        return s.error();
    return pool;
}

} // namespace

Status keepPoolReserved()
{
    const auto pool = currentPool();
    if (!pool)
        return pool.error();
    std::uint64_t threshold = UINT64_MAX;
    return cudaCall(cudaMemPoolSetAttribute(*pool, cudaMemPoolAttrReleaseThreshold, &threshold),
                    "cudaMemPoolSetAttribute(cudaMemPoolAttrReleaseThreshold)");
}

Result<PoolUsage> poolUsage()
{
    const auto pool = currentPool();
    if (!pool)
        return pool.error();
    PoolUsage usage;
    for (const auto &[attribute, bytes] :
         {std::pair{cudaMemPoolAttrReservedMemCurrent, &usage.reservedBytes},
          std::pair{cudaMemPoolAttrUsedMemCurrent, &usage.usedBytes},
          std::pair{cudaMemPoolAttrReservedMemHigh, &usage.reservedHighBytes},
          std::pair{cudaMemPoolAttrUsedMemHigh, &usage.usedHighBytes}}) {
        std::uint64_t value = 0;
        if (Status s = cudaCall(cudaMemPoolGetAttribute(*pool, attribute, &value),
                                "cudaMemPoolGetAttribute");
            !s)
            return s.error();
        *bytes = std::size_t(value);
    }
    return usage;
}

} // namespace hetplan::runtime::cuda
