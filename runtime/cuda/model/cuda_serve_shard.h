#pragma once

// One stage shard of a serving replica on one GPU (docs/runtime.md, "Serving runs"): the
// counterpart of runtime/serve/serve_shard.h on the GPU model. The same parameters and cuts as
// CudaShard (cuda_shard.h), the same initial weights made on the device (or a training run's
// dumped weights), the same precision: bf16 GEMM operands with fp32 accumulation, fp32 residual
// stream and TP partial sums. It keeps the bf16 copy of every weight, and fp32 values only of
// the embedding and the norms' gains (what is read in fp32), so 2 bytes per parameter. The KV cache
// of its layers is bf16 in device memory, sized from the workload (slots × capacityTokens) and
// allocated once with the weights; a step's scratch grows to the largest step seen and is kept.
// Attention runs the new rows against the cache (serve_kernels.h decodeAttention), so a prefill
// chunk and a decoded token are the same call.
//
// The step's rows, its input activations and its output (activations or the head's logits)
// are host fp32 buffers, as the serving engine passes them between stages through the host
// (runtime/serve/serve_links.h); the TP all-reduces run on the device through the DeviceTpComm
// given to create() (the worker's NCCL TP group, as CudaShard's).

#include "core/base/result.h"
#include "runtime/cuda/model/cuda_shard.h"
#include "runtime/model/model_tensors.h"
#include "runtime/serve/serve_stage.h"
#include "runtime/serve/weight_source.h"

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace hetplan::runtime::cuda {

struct CudaServeOptions
{
    int slots = 1;          // sequences decoded together: the workload's batch
    int capacityTokens = 0; // positions per sequence: prompt + output tokens
    std::uint64_t seed = 0; // the initial weights' seed, where `weights` is empty
    // A training run's dumped weights (runtime/serve/weight_source.h dumpedWeights), read on the
    // host and uploaded; empty: model_init's weights of `seed`, made on the device.
    WeightSource weights;
};

// The device bytes a serving shard holds.
struct ServeMemoryTable
{
    std::size_t weightBytes = 0; // the bf16 copies; fp32 values of the embedding and norms too
    std::size_t kvCacheBytes = 0;
    std::size_t workingBytes = 0; // the largest step's scratch so far, and the rotary table
    std::size_t totalBytes() const { return weightBytes + kvCacheBytes + workingBytes; }
};

class CudaServeShard final : public ServeStage
{
public:
    // On the current CUDA device; `stream` and `tp` are not owned and must outlive the shard.
    static Result<std::unique_ptr<CudaServeShard>> create(const ModelConfig &config,
                                                          const ShardSpec &shard,
                                                          const CudaServeOptions &options,
                                                          StreamHandle stream, DeviceTpComm &tp);
    ~CudaServeShard() override;
    CudaServeShard(const CudaServeShard &) = delete;
    CudaServeShard &operator=(const CudaServeShard &) = delete;

    const ModelConfig &config() const override { return m_config; }
    const ShardSpec &spec() const { return m_shard; }
    int slots() const override { return m_options.slots; }
    int capacityTokens() const override { return m_options.capacityTokens; }

    // ServeShard::forward on the GPU: enqueues the step on the stream, then waits for its output.
    Status forward(std::span<const TokenRow> rows, std::span<const float> input,
                   std::span<const int> logitRows, std::vector<float> &output) override;

    ServeMemoryTable memoryTable() const;

private:
    struct State;
    CudaServeShard(ModelConfig config, ShardSpec shard, CudaServeOptions options,
                   StreamHandle stream, DeviceTpComm &tp);
    Status makeWeights();
    Status layer(std::size_t index, int rows);
    Status head(std::span<const int> logitRows, std::vector<float> &output);

    ModelConfig m_config;
    ShardSpec m_shard;
    CudaServeOptions m_options;
    StreamHandle m_stream = nullptr;
    DeviceTpComm &m_tp;
    std::unique_ptr<State> m_state;
};

} // namespace hetplan::runtime::cuda
