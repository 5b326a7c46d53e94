#pragma once

// Device memory owned by one object, and the copies between it and the host, with CUDA's
// failures as Errors. Kept free of CUDA's headers like cuda_shard.h.

#include "core/base/result.h"
#include "runtime/cuda/model/bf16.h"

#include <cstddef>
#include <span>
#include <vector>

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

    // Makes the buffer at least `bytes` long. Growing drops the contents and waits for the
    // device first (cudaFree does), so a buffer sized once for the largest micro-batch keeps
    // forward and backward free of host synchronisation afterwards.
    Status reserve(std::size_t bytes);

    std::size_t bytes() const { return m_bytes; }
    template<typename T>
    T *as() const
    {
        return static_cast<T *>(m_data);
    }

private:
    void *m_data = nullptr;
    std::size_t m_bytes = 0;
};

// cudaMemsetAsync to zero; a count of 0 does nothing.
Status zeroDevice(void *device, std::size_t bytes, CUstream_st *stream);
// Host → device, waiting until the copy is done (for uploads outside forward/backward).
Status uploadNow(void *device, const void *host, std::size_t bytes);
Status uploadNow(void *device, std::span<const float> host);
Status uploadNow(void *device, std::span<const Bf16> host);
// Waits for everything enqueued on the device by this process (after uploads: a copy from
// pageable memory may return before its DMA lands, and other streams do not wait for it).
Status waitForDevice();
// Device → host after the work enqueued on `stream` so far.
Status downloadAfter(void *host, const void *device, std::size_t bytes, CUstream_st *stream);
// Device → device, enqueued on `stream`.
Status copyOnDevice(void *to, const void *from, std::size_t bytes, CUstream_st *stream);

// Host floats rounded to bf16 (for uploads of activations in tests and checks).
std::vector<Bf16> toBf16(std::span<const float> values);

} // namespace hetplan::runtime::cuda
