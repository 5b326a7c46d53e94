#pragma once

// Where a serving shard's weights come from: the deterministic initial weights training starts
// from (runtime/model/model_init.h), or a training run's weight dump
// (runtime/worker/weight_dump.h, docs/runtime.md "Weight dumps"). Either way a shard asks for
// exactly its slice of each tensor, so any cut of the model serves the same weights.

#include "core/base/result.h"
#include "runtime/model/model_tensors.h"

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace hetplan::runtime {

// Fills `out` (size range.size()) with the elements `range` of `tensor`.
using WeightSource
    = std::function<Status(const TensorLayout &tensor, ElementRange range, std::span<float> out)>;

WeightSource seededWeights(int layers, std::uint64_t seed);

// Full tensors by name (a run's dumps assembled with placeSlice, weight_set.h); a tensor missing
// from `weights` or of another size is an error naming it. `weights` must outlive the source.
WeightSource dumpedWeights(const std::map<std::string, std::vector<float>> &weights);

} // namespace hetplan::runtime
