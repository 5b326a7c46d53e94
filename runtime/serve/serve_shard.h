#pragma once

// One stage shard of a serving replica (docs/runtime.md, "Serving runs"): layers [b, e) at TP
// index t of T, the embedding and/or the final norm + head where it holds them, with the KV cache
// of its layers. The same parameters, cuts and kernels as training's ModelShard
// (runtime/model/model_shard.h); attention reads the cache instead of the whole sequence, so a
// prefill chunk and a decoded token are the same call.

#include "core/base/result.h"
#include "runtime/model/model_config.h"
#include "runtime/model/rotary_embedding.h"
#include "runtime/model/tp_comm.h"
#include "runtime/serve/kv_cache.h"
#include "runtime/serve/serve_stage.h"
#include "runtime/serve/weight_source.h"

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace hetplan::runtime {

struct ServeShardOptions
{
    int slots = 1;          // sequences decoded together: the workload's batch
    int capacityTokens = 0; // positions per sequence: prompt + output tokens
};

class ServeShard
{
public:
    static Result<ServeShard> create(const ModelConfig &config, const ShardSpec &shard,
                                     const WeightSource &weights, ServeShardOptions options);
    ServeShard(ServeShard &&) noexcept;
    ServeShard &operator=(ServeShard &&) noexcept;
    ~ServeShard();

    const ModelConfig &config() const { return m_config; }
    const ShardSpec &spec() const { return m_shard; }
    const KvCache &cache() const;

    // Computes `rows` through this shard's layers, writing their keys and values into the cache.
    // `input` is the previous stage's output [rows × hidden] (empty on the embedding shard).
    // `output` becomes this stage's output [rows × hidden], or on the head shard the logits
    // [logitRows × vocab] of the rows `logitRows` lists (indices into `rows`). Every TP rank of
    // the stage gets the same bits, given a TpComm that hands every rank the same sums.
    Status forward(std::span<const TokenRow> rows, std::span<const float> input,
                   std::span<const int> logitRows, TpComm &tp, std::vector<float> &output);

    // Bytes of weights and KV cache, for the measurement's memory.
    std::size_t bytesHeld() const;

private:
    struct State;
    ServeShard(ModelConfig config, ShardSpec shard);

    ModelConfig m_config;
    ShardSpec m_shard;
    std::unique_ptr<State> m_state;
};

} // namespace hetplan::runtime
