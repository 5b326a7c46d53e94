#pragma once

#include "runtime/model/counter_hash.h"
#include "runtime/model/model_tensors.h"

#include <cstdint>
#include <span>

namespace hetplan::runtime {

// Deterministic weights and data that do not depend on how a plan cuts the model: every value is
// a pure function of the seed and its coordinates (a counter-based hash, splitmix64:
// counter_hash.h), so a rank makes exactly its slice, and one process making the whole model gets
// the same numbers. The GPU model makes its slice on the device from the same WeightInit.
//
// Weights: element i of tensor `name` = std · z(seed, fnv1a64(name), i), where z has mean 0 and
// standard deviation 1: (u1 + u2 + u3 + u4 − 2)·√3 with four uniforms from the hash (bounded at
// ±3.46, like a truncated normal, and made of additions only, so every platform gets the same
// bits). std = 0.02 for embedding, q, k, v, gate, up and head; 0.02/√(2L) for o and down (the
// residual-branch outputs, as GPT-2 scales them); norm gains are 1.
using counter_hash::WeightInit;
WeightInit weightInit(const TensorLayout &tensor, int layers, std::uint64_t seed);
float initialWeight(const TensorLayout &tensor, int layers, std::uint64_t seed,
                    std::int64_t element);
// Writes the elements [range.begin, range.end) of `tensor` into `out` (size range.size()).
void initialWeights(const TensorLayout &tensor, int layers, std::uint64_t seed, ElementRange range,
                    std::span<float> out);

// Synthetic training data. Sample s is seqLen + 1 tokens (inputs: positions 0 … seqLen−1, targets:
// 1 … seqLen): an arithmetic progression start + position·stride (mod vocab), with start and
// stride ∈ {1, 2, 3, 4} drawn per sample, and one token in eight replaced by a random one. The
// stride can only be read from context, so the loss falls below ln(vocab) only as attention learns.
int syntheticToken(std::uint64_t seed, std::int64_t sample, int position, int vocab);

} // namespace hetplan::runtime
