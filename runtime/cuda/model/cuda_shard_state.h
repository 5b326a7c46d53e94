#pragma once

// CudaShard's private state (cuda_shard.h): the device allocations, the cuBLAS handle and the
// stashes of the micro-batches in flight. Shared by cuda_shard.cpp and cuda_optimizer.cpp only.

#include "runtime/cuda/device_buffer.h"
#include "runtime/cuda/model/cuda_layer.h"
#include "runtime/cuda/model/shard_layout.h"

#include <cuda_runtime_api.h>
#include <map>
#include <vector>

namespace hetplan::runtime::cuda {

struct MicroBatchStash
{
    SampleSpan rows;
    MicroBatchLayout layout;
    DeviceBuffer buffer;
};

// ShardWeights: where each parameter serves (cuda_layer.h).
class CudaShardState : public ShardWeights
{
public:
    CudaShardState() = default;
    CudaShardState(const CudaShardState &) = delete;
    CudaShardState &operator=(const CudaShardState &) = delete;
    ~CudaShardState();

    OwnedBlas blas;
    ShardDims dims;
    // Every parameter's pieces in one allocation, by kind: all values, then all gradients, all
    // first moments, all second moments (so the optimizer-state part is one range to zero), then
    // the bf16 copies.
    DeviceBuffer parameters;
    std::size_t gradientsBegin = 0; // byte offsets in `parameters`
    std::size_t gradientsEnd = 0;
    std::size_t momentsEnd = 0;
    DeviceBuffer rotary; // [seqLen × headDim] (cos, sin) pairs
    DeviceBuffer scratch;
    std::map<int, MicroBatchStash> inFlight;
    // Stashes of finished micro-batches, reused so that a forward does not allocate.
    std::vector<MicroBatchStash> spare;
    std::vector<float> rowLoss; // the head's per-token losses, on the host
    // DeviceParameter::gradientsReady: the head's (final norm and head), then one per layer,
    // then the embedding's; those of what the shard does not hold stay unused.
    std::vector<cudaEvent_t> gradientsDone;
    cudaEvent_t headGradientsDone() const { return gradientsDone.front(); }
    cudaEvent_t layerGradientsDone(std::size_t layer) const { return gradientsDone[1 + layer]; }
    cudaEvent_t embeddingGradientsDone() const { return gradientsDone.back(); }
};

} // namespace hetplan::runtime::cuda
