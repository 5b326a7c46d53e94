#include "runtime/cuda/model/device_buffer.h"

#include "runtime/cuda/device.h"

#include <cuda_runtime_api.h>
#include <utility>

namespace hetplan::runtime::cuda {

namespace {

Status checked(cudaError_t status, const char *what)
{
    if (status != cudaSuccess)
        return cudaError(int(status), what);
    return okStatus();
}

} // namespace

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : m_data(std::exchange(other.m_data, nullptr))
    , m_bytes(std::exchange(other.m_bytes, 0))
{}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept
{
    if (this != &other) {
        if (m_data != nullptr)
            cudaFree(m_data);
        m_data = std::exchange(other.m_data, nullptr);
        m_bytes = std::exchange(other.m_bytes, 0);
    }
    return *this;
}

DeviceBuffer::~DeviceBuffer()
{
    if (m_data != nullptr)
        cudaFree(m_data);
}

Status DeviceBuffer::reserve(std::size_t bytes)
{
    if (bytes <= m_bytes)
        return okStatus();
    if (m_data != nullptr) {
        cudaFree(m_data);
        m_data = nullptr;
        m_bytes = 0;
    }
    if (Status s = checked(cudaMalloc(&m_data, bytes), "cudaMalloc of a model buffer"); !s) {
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
    return checked(cudaMemsetAsync(device, 0, bytes, stream), "cudaMemsetAsync");
}

Status uploadNow(void *device, const void *host, std::size_t bytes)
{
    if (bytes == 0)
        return okStatus();
    return checked(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice),
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

Status waitForDevice()
{
    return checked(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

Status downloadAfter(void *host, const void *device, std::size_t bytes, CUstream_st *stream)
{
    if (bytes == 0)
        return okStatus();
    if (Status s = checked(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream),
                           "cudaMemcpyAsync device to host");
        !s)
        return s;
    return checked(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
}

Status copyOnDevice(void *to, const void *from, std::size_t bytes, CUstream_st *stream)
{
    if (bytes == 0)
        return okStatus();
    return checked(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, stream),
                   "cudaMemcpyAsync device to device");
}

std::vector<Bf16> toBf16(std::span<const float> values)
{
    std::vector<Bf16> result(values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
        result[i] = toBf16(values[i]);
    return result;
}

} // namespace hetplan::runtime::cuda
