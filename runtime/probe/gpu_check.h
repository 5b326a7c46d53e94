#pragma once

// The probe's device memory, events and event timing. Every CUDA call goes through
// runtime/cuda's error boundary (cuda_status.h).

#include "core/base/result.h"
#include "runtime/cuda/cuda_status.h"
#include "runtime/probe/probe_timing.h"

#include <cuda_runtime_api.h>
#include <string>
#include <vector>

namespace hetplan::runtime::probe {

// Device memory freed on every path out.
class DeviceBuffer
{
public:
    DeviceBuffer() = default;
    DeviceBuffer(const DeviceBuffer &) = delete;
    DeviceBuffer &operator=(const DeviceBuffer &) = delete;
    ~DeviceBuffer()
    {
        if (m_data)
            cudaFree(m_data);
    }
    Status allocate(std::size_t bytes, const std::string &what)
    {
        return cuda::cudaCall(cudaMalloc(&m_data, bytes),
                              "cudaMalloc of " + std::to_string(bytes) + " bytes for " + what);
    }
    template<typename T>
    T *as() const
    {
        return static_cast<T *>(m_data);
    }

private:
    void *m_data = nullptr;
};

// Events destroyed on every path out.
class EventPair
{
public:
    EventPair() = default;
    EventPair(const EventPair &) = delete;
    EventPair &operator=(const EventPair &) = delete;
    ~EventPair()
    {
        for (cudaEvent_t e : {start, stop})
            if (e)
                cudaEventDestroy(e);
    }
    Status create()
    {
        if (Status s = cuda::cudaCall(cudaEventCreate(&start), "cudaEventCreate"); !s)
            return s;
        return cuda::cudaCall(cudaEventCreate(&stop), "cudaEventCreate");
    }

    cudaEvent_t start = nullptr;
    cudaEvent_t stop = nullptr;
};

// Seconds per call of `launch` (which enqueues one call and returns a Status), per repetition,
// as `plan` says (probe_timing.h), timed with CUDA events on `stream`: from before the first
// call to after the last, which must therefore end on `stream`.
template<typename Launch>
Result<std::vector<double>> timeOnStream(cudaStream_t stream, const TimingPlan &plan,
                                         int repetitions, Launch launch)
{
    EventPair events;
    if (Status s = events.create(); !s)
        return s.error();
    return timeRepetitions(plan, repetitions, [&](int calls) -> Result<double> {
        if (Status s = cuda::cudaCall(cudaEventRecord(events.start, stream), "cudaEventRecord"); !s)
            return s.error();
        for (int c = 0; c < calls; ++c)
            if (Status s = launch(); !s)
                return s.error();
        if (Status s = cuda::cudaCall(cudaEventRecord(events.stop, stream), "cudaEventRecord"); !s)
            return s.error();
        if (Status s = cuda::cudaCall(cudaEventSynchronize(events.stop), "cudaEventSynchronize");
            !s)
            return s.error();
        float ms = 0;
        if (Status s = cuda::cudaCall(cudaEventElapsedTime(&ms, events.start, events.stop),
                                      "cudaEventElapsedTime");
            !s)
            return s.error();
        return double(ms) / 1e3 / calls;
    });
}

} // namespace hetplan::runtime::probe
