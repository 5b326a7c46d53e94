#pragma once

// Device memory owned by one object, the copies between it and the host, and the stream-ordered
// pool's policy, with CUDA's failures as Errors (cudaCall). The one device buffer type of the GPU
// model, the worker and the probe; kept free of CUDA's headers like cuda_shard.h.

#include "core/base/result.h"
#include "runtime/cuda/model/bf16.h"

#include <cstddef>
#include <span>
#include <string_view>

struct CUstream_st;

namespace hetplan::runtime::cuda {

class DeviceBuffer
{
public:
    DeviceBuffer() = default;
    DeviceBuffer(DeviceBuffer &&other) noexcept;
    DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
    DeviceBuffer(const DeviceBuffer &) = delete;
    DeviceBuffer &operator=(const DeviceBuffer &) = delete;
    ~DeviceBuffer();

    // Makes the buffer at least `bytes` long (cudaMalloc); `what` names it in the error. Growing
    // drops the contents and waits for the device first (cudaFree does), so a buffer sized once
    // for the largest micro-batch keeps forward and backward free of host synchronisation.
    Status reserve(std::size_t bytes, std::string_view what = "a model buffer");

    std::size_t bytes() const { return m_bytes; }
    template<typename T>
    T *as() const
    {
        return static_cast<T *>(m_data);
    }

private:
    void release() noexcept;

    void *m_data = nullptr;
    std::size_t m_bytes = 0;
};

// cudaMemsetAsync to zero; a count of 0 does nothing.
Status zeroDevice(void *device, std::size_t bytes, CUstream_st *stream);
// Host → device, waiting until the copy is done (for uploads outside forward/backward).
Status uploadNow(void *device, const void *host, std::size_t bytes);
Status uploadNow(void *device, std::span<const float> host);
Status uploadNow(void *device, std::span<const Bf16> host);
// Host → device enqueued on `stream`, so that work enqueued there later reads it. From pageable
// host memory (a std::vector) CUDA copies the source out before it returns: the caller may
// reuse it at once.
Status uploadOn(void *device, const void *host, std::size_t bytes, CUstream_st *stream);
// Waits for everything enqueued on the device by this process (after uploads: a copy from
// pageable memory may return before its DMA lands, and other streams do not wait for it).
Status waitForDevice();
// Device → host after the work enqueued on `stream` so far.
Status downloadAfter(void *host, const void *device, std::size_t bytes, CUstream_st *stream);
// Device → device, enqueued on `stream`.
Status copyOnDevice(void *to, const void *from, std::size_t bytes, CUstream_st *stream);

// The current device's stream-ordered pool (what cudaMallocAsync draws from), in bytes.
struct PoolUsage
{
    std::size_t reservedBytes = 0;     // mapped by the pool now, in use or not
    std::size_t usedBytes = 0;         // handed out by cudaMallocAsync and not yet freed
    std::size_t reservedHighBytes = 0; // the highest reservedBytes since the pool was made
    std::size_t usedHighBytes = 0;
};

// Makes the current device's pool keep what it has reserved (release threshold UINT64_MAX)
// instead of CUDA's default 0, which unmaps every freed block at the next synchronisation and
// maps it again at the next allocation (docs/runtime.md "Device memory"). The pool then grows to
// the largest step's need once and stays there.
Status keepPoolReserved();
Result<PoolUsage> poolUsage();

} // namespace hetplan::runtime::cuda
