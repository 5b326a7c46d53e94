#pragma once

// CUDA, cuBLAS and NCCL status codes as Errors, for the probe's .cu files.

#include "core/base/result.h"
#include "runtime/cuda/device.h"
#include "runtime/cuda/device_buffer.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <string>
#include <vector>

namespace hetplan::runtime::probe {

inline Status cudaCheck(cudaError_t code, const std::string &what)
{
    if (code == cudaSuccess)
        return okStatus();
    return cuda::cudaError(int(code), what);
}

inline Status cublasCheck(cublasStatus_t code, const std::string &what)
{
    if (code == CUBLAS_STATUS_SUCCESS)
        return okStatus();
    return Error{ErrorKind::Internal, what + ": " + cublasGetStatusString(code)};
}

inline Status ncclCheck(ncclResult_t code, const std::string &what)
{
    if (code == ncclSuccess)
        return okStatus();
    return Error{ErrorKind::Internal, what + ": " + ncclGetErrorString(code)};
}

// Device memory freed on every path out: the runtime's one device buffer type.
using cuda::DeviceBuffer;

// Calls per timed repetition: enough that one repetition lasts about `targetS`, so launch and
// event overheads stay small beside short kernels.
inline int callsPerRepetition(double oneCallS, double targetS = 2e-3)
{
    if (oneCallS <= 0)
        return 1000;
    const double calls = targetS / oneCallS;
    return calls < 1 ? 1 : calls > 1000 ? 1000 : int(calls);
}

// Seconds per call of `launch` (which enqueues one call on `stream` and returns a Status), per
// repetition, timed with CUDA events after two warm-up calls, the second of which sets how many
// calls a repetition makes.
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
        if (Status s = cudaCheck(cudaEventCreate(&start), "cudaEventCreate"); !s)
            return s;
        return cudaCheck(cudaEventCreate(&stop), "cudaEventCreate");
    }

    cudaEvent_t start = nullptr;
    cudaEvent_t stop = nullptr;
};

// Seconds per call of `launch` (which enqueues one call on `stream` and returns a Status), per
// repetition, timed with CUDA events after two warm-up calls, the second of which sets how many
// calls a repetition makes.
template<typename Launch>
Result<std::vector<double>> timeOnStream(cudaStream_t stream, int repetitions, Launch launch)
{
    EventPair events;
    if (Status s = events.create(); !s)
        return s.error();
    int calls = 1;
    const auto timeCalls = [&](int calls) -> Result<double> {
        if (Status s = cudaCheck(cudaEventRecord(events.start, stream), "cudaEventRecord"); !s)
            return s.error();
        for (int c = 0; c < calls; ++c)
            if (Status s = launch(); !s)
                return s.error();
        if (Status s = cudaCheck(cudaEventRecord(events.stop, stream), "cudaEventRecord"); !s)
            return s.error();
        if (Status s = cudaCheck(cudaEventSynchronize(events.stop), "cudaEventSynchronize"); !s)
            return s.error();
        float ms = 0;
        if (Status s = cudaCheck(cudaEventElapsedTime(&ms, events.start, events.stop),
                                 "cudaEventElapsedTime");
            !s)
            return s.error();
        return double(ms) / 1e3 / calls;
    };
    // The first call pays for lazy module loading and cuBLAS's heuristics; the second is the
    // one to size repetitions by.
    for (const bool sizing : {false, true}) {
        const auto warm = timeCalls(1);
        if (!warm)
            return warm.error();
        if (sizing)
            calls = callsPerRepetition(*warm);
    }
    std::vector<double> seconds;
    for (int r = 0; r < repetitions; ++r) {
        const auto s = timeCalls(calls);
        if (!s)
            return s.error();
        seconds.push_back(*s);
    }
    return seconds;
}

} // namespace hetplan::runtime::probe
