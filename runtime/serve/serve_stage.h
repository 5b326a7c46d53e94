#pragma once

// What the serving engine (serve_engine.h) computes one step with: a stage shard of a replica on
// the CPU (serve_shard.h) or on a GPU (runtime/cuda/model/cuda_serve_shard.h), its TP group
// bound in. Its own small library (hetplan-serve-stage), so the GPU model implements it without
// the engine's.

#include "core/base/result.h"
#include "runtime/model/model_config.h"

#include <cstddef>
#include <span>
#include <vector>

namespace hetplan::runtime {

// One token a step computes: position `position` of the sequence in cache slot `slot`. `token`
// is read by the embedding shard only. The rows of one slot in a step are consecutive positions
// in order, after every position the slot already holds (a prefill chunk, or one decoded token).
struct TokenRow
{
    int slot = 0;
    int position = 0;
    int token = 0;
};

class ServeStage
{
public:
    virtual ~ServeStage() = default;

    virtual const ModelConfig &config() const = 0;
    // The KV cache's shape: sequences decoded together, positions per sequence.
    virtual int slots() const = 0;
    virtual int capacityTokens() const = 0;

    // ServeShard::forward's contract (serve_shard.h), on host buffers: `input` the previous
    // stage's output [rows × hidden] in fp32 (empty on the embedding shard); `output` this
    // stage's [rows × hidden], or on the head shard the logits [logitRows × vocab].
    virtual Status forward(std::span<const TokenRow> rows, std::span<const float> input,
                           std::span<const int> logitRows, std::vector<float> &output)
        = 0;
};

// What every ServeStage checks, with the same words: a cache of at least one slot of one token
// (BadInput); a step's input of `expectedInputs` values, its rows inside the cache and, where
// `vocab` > 0 (the embedding shard), their tokens inside the vocabulary, and its logit rows
// indices into its rows (errors of the caller, ErrorKind::Internal).
Status checkServeCache(int slots, int capacityTokens);
Status checkServeStep(std::span<const TokenRow> rows, std::size_t inputs,
                      std::size_t expectedInputs, std::span<const int> logitRows, int slots,
                      int capacityTokens, int vocab);

} // namespace hetplan::runtime
