#pragma once

// A TP group of CudaShards driven by threads of one process on one GPU, for tests: each rank's
// all-reduce waits for the others, sums every rank's buffer in rank order (so every rank gets the
// same bits) and copies the sum back. It synchronises the host with the stream at each call,
// which the NCCL communicator of the worker does not.

#include "runtime/cuda/device_buffer.h"
#include "runtime/cuda/model/cuda_shard.h"

#include <barrier>
#include <memory>
#include <vector>

namespace hetplan::runtime::cuda {

class InProcessTpGroup
{
public:
    explicit InProcessTpGroup(int ranks);
    InProcessTpGroup(const InProcessTpGroup &) = delete;
    InProcessTpGroup &operator=(const InProcessTpGroup &) = delete;
    ~InProcessTpGroup();

    // The communicator rank `rank` passes to its shard (one thread per rank). If one rank stops
    // calling (its forward failed), the others wait for ever: a test harness, not a runtime.
    DeviceTpComm &rank(int rank);

private:
    class Rank;
    friend class Rank;

    std::barrier<> m_barrier;
    std::vector<const float *> m_published; // each rank's buffer of the current call
    std::vector<std::unique_ptr<Rank>> m_ranks;
};

} // namespace hetplan::runtime::cuda
