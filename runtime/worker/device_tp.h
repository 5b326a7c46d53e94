#pragma once

// A CUDA shard's TP all-reduce (cuda::DeviceTpComm, runtime/cuda/model/cuda_shard.h) as the
// rank's backend runs it, for the GPU training stage (cuda_stage.cpp) and the GPU serving shard
// (gpu_rank.cpp) alike.

#include "runtime/cuda/model/cuda_shard.h"
#include "runtime/model/tp_comm.h"
#include "runtime/worker/backend.h"

namespace hetplan::runtime {

// `tp`'s sum (the executor's, timed as tp_comm, or a BackendTpComm of the stage's TP group,
// backend_tp.h): the partial sums travel in the backend's wire type, after the compute stream's
// queued work, which waits for the sum in turn (cuda_backend.h).
class DeviceTp final : public cuda::DeviceTpComm
{
public:
    DeviceTp(TpComm &tp, Backend &backend)
        : m_tp(tp)
        , m_backend(backend)
    {}
    Status allReduceSum(float *data, std::size_t count, cuda::StreamHandle) override
    {
        return m_tp.allReduceSum(data, count);
    }
    Status awaitQueued() override { return m_backend.synchronize(); }

private:
    TpComm &m_tp;
    Backend &m_backend;
};

} // namespace hetplan::runtime
