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
// Up to outlierFraction of a tensor's elements, rounded up (so at least one in any tensor), may
// instead be within outlierAbsolute: after Adam, an element whose gradient was at the rounding
// noise can move by up to a whole step either way, and which elements those are depends on the
// BLAS kernels' summation order (OPENBLAS_CORETYPE), not on the tensor's size.
struct WeightTolerance
{
    double absolute = 0;
    double relative = 0;
    double relativeToMax = 0;
    double outlierFraction = 0;
    double outlierAbsolute = 0;
};

// The tolerance for weights after `iterations` Adam steps of a distributed run against the
// reference run: 1% of a step per iteration for the bulk, and 1 in 10⁴ elements of a tensor (at
// least one) may differ by up to two steps per iteration (a gradient near zero whose sign
// rounding decided).
// Measured on llama2-13b at --scale 32 (2 layers, TP 4, 3 iterations): all but 6 of 940,320
// elements within 1e-5 (= 1% of lr), the largest difference 9.6e-5.
WeightTolerance adamWeightTolerance(float learningRate, int iterations);

// The tolerance for weights after `iterations` SGD steps (w ← w − lr·g) of a distributed run
// against the reference run. The gradients differ only in summation order: within 1e-5 of the
// tensor's largest gradient element (tst_model_parallel), and the elements of a gradient of the
// mean token loss are below 1, so lr·1e-5 per step; the update itself rounds to half an ulp of
// the weight, and a gradient one ulp apart can round it the other way: 2⁻²³ of |w| per step. A
// gradient scaled wrongly (a replica lost or counted twice) moves the weights by lr·|g|, orders
// of magnitude more. No outliers: unlike Adam, SGD's step is proportional to the gradient.
WeightTolerance sgdWeightTolerance(float learningRate, int iterations);

// The loss of a distributed run against the reference's: relative, per iteration. Measured
// ≤ 3e-8 over 3 iterations (the loss is summed in double); 1e-5 leaves room for any summation
// order.
constexpr double kLossRelativeTolerance = 1e-5;

// Ok when both sets hold the same tensors of the same sizes and every element is within the
// tolerance; otherwise an error naming `what`, the tensor, the element and both values (the
// first offending tensor in name order, its worst element).
Status compareWeightSets(const WeightSet &expected, const WeightSet &actual,
                         WeightTolerance tolerance, const std::string &what);

} // namespace hetplan::runtime
