#pragma once

#include "runtime/model/model_tensors.h"

#include <map>
#include <span>
#include <string>
#include <vector>

namespace hetplan::runtime {

class ModelShard;

// Full tensors by parameter name (model_tensors.h), flattened row-major.
using WeightSet = std::map<std::string, std::vector<float>>;

// Writes `values` (the elements `slice` of `tensor`) into the full tensor in `set`, creating it
// zero-filled at its full size first. How a run assembles its ranks' slices into whole tensors.
void placeSlice(WeightSet &set, const TensorLayout &tensor, ElementRange slice,
                std::span<const float> values);

enum class ShardBuffer { Values, Gradients };
// Places every parameter slice of `shard` (its values or its gradients) into `set`.
void placeShard(WeightSet &set, const ModelShard &shard, ShardBuffer buffer);

// Element by element: |actual − expected| ≤ absolute + relative · |expected| + relativeToMax · m,
// where m is the largest |expected| of the tensor. relativeToMax suits gradients, whose small
// elements carry the rounding error of the large terms they were summed from.
struct WeightTolerance
{
    double absolute = 0;
    double relative = 0;
    double relativeToMax = 0;
};

// Ok when both sets hold the same tensors of the same sizes and every element is within the
// tolerance; otherwise an error naming `what`, the tensor, the element and both values (the
// first offending tensor in name order, its worst element).
Status compareWeightSets(const WeightSet &expected, const WeightSet &actual,
                         WeightTolerance tolerance, const std::string &what);

} // namespace hetplan::runtime
