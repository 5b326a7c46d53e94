#pragma once

// The probe's device memory, events and event timing. Every CUDA call goes through
// runtime/cuda's error boundary (cuda_status.h).

#include "core/base/result.h"
#include "runtime/cuda/cuda_status.h"
#include "runtime/cuda/device_buffer.h"
#include "runtime/probe/probe_timing.h"

#include <cuda_runtime_api.h>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace hetplan::runtime::probe {

// Device memory freed on every path out: the runtime's one device buffer type.
using cuda::DeviceBuffer;

// A CUDA library's handle, released by `destroy` on every path out.
template<typename Handle, auto destroy>
struct Release
{
    void operator()(Handle handle) const { (void)destroy(handle); }
};
template<typename Handle, auto destroy>
using Owned = std::unique_ptr<std::remove_pointer_t<Handle>, Release<Handle, destroy>>;
using OwnedStream = Owned<cudaStream_t, cudaStreamDestroy>;
using OwnedEvent = Owned<cudaEvent_t, cudaEventDestroy>;

// A stream of the current device.
inline Result<OwnedStream> makeStream()
{
    cudaStream_t stream = nullptr;
    if (Status s = cuda::cudaCall(cudaStreamCreate(&stream), "cudaStreamCreate"); !s)
        return s.error();
    return OwnedStream(stream);
}

// An event of the current device (cudaEventDisableTiming where it only orders streams).
inline Result<OwnedEvent> makeEvent(unsigned flags = cudaEventDefault)
{
    cudaEvent_t event = nullptr;
    if (Status s
        = cuda::cudaCall(cudaEventCreateWithFlags(&event, flags), "cudaEventCreateWithFlags");
        !s)
        return s.error();
    return OwnedEvent(event);
}

// Seconds per call of `launch` (which enqueues one call and returns a Status), per repetition,
// as `plan` says (probe_timing.h), timed with CUDA events on `stream`: from before the first
// call to after the last, which must therefore end on `stream`.
template<typename Launch>
Result<std::vector<double>> timeOnStream(cudaStream_t stream, const TimingPlan &plan,
                                         int repetitions, Launch launch)
{
    auto start = makeEvent();
    if (!start)
        return start.error();
    auto stop = makeEvent();
    if (!stop)
        return stop.error();
    return timeRepetitions(plan, repetitions, [&](int calls) -> Result<double> {
        if (Status s = cuda::cudaCall(cudaEventRecord(start->get(), stream), "cudaEventRecord"); !s)
            return s.error();
        for (int c = 0; c < calls; ++c)
            if (Status s = launch(); !s)
                return s.error();
        if (Status s = cuda::cudaCall(cudaEventRecord(stop->get(), stream), "cudaEventRecord"); !s)
            return s.error();
        if (Status s = cuda::cudaCall(cudaEventSynchronize(stop->get()), "cudaEventSynchronize");
            !s)
            return s.error();
        float ms = 0;
        if (Status s = cuda::cudaCall(cudaEventElapsedTime(&ms, start->get(), stop->get()),
                                      "cudaEventElapsedTime");
            !s)
            return s.error();
        return double(ms) / 1e3 / calls;
    });
}

} // namespace hetplan::runtime::probe
