#include "runtime/model/weight_set.h"

#include "runtime/model/model_shard.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <sstream>

namespace hetplan::runtime {

WeightTolerance adamWeightTolerance(float learningRate, int iterations)
{
    const double steps = double(learningRate) * std::max(1, iterations);
    return {0.01 * steps, 0, 0, 1e-4, 2 * steps};
}

WeightTolerance sgdWeightTolerance(float learningRate, int iterations)
{
    const double steps = std::max(1, iterations);
    return {double(learningRate) * 1e-5 * steps, 0x1p-23 * steps, 0, 0, 0};
}

void placeSlice(WeightSet &set, const TensorLayout &tensor, ElementRange slice,
                std::span<const float> values)
{
    assert(std::int64_t(values.size()) == slice.size() && slice.end <= tensor.elements());
    std::vector<float> &full = set[tensor.name];
    full.resize(std::size_t(tensor.elements()), 0.0f);
    std::copy(values.begin(), values.end(), full.begin() + slice.begin);
}

void placeShard(WeightSet &set, const ModelShard &shard, ShardBuffer buffer)
{
    for (const Parameter &p : shard.parameters())
        placeSlice(set, p.tensor, p.slice, buffer == ShardBuffer::Values ? p.value : p.grad);
}

Status compareWeightSets(const WeightSet &expected, const WeightSet &actual,
                         WeightTolerance tolerance, const std::string &what)
{
    for (const auto &[name, want] : expected) {
        auto found = actual.find(name);
        if (found == actual.end())
            return badInput(what + ": tensor '" + name + "' is missing");
        const std::vector<float> &got = found->second;
        if (got.size() != want.size())
            return badInput(what + ": tensor '" + name + "' has " + std::to_string(got.size())
                            + " elements; expected " + std::to_string(want.size()));
        double largest = 0;
        for (float v : want)
            largest = std::max(largest, double(std::abs(v)));
        const double base = tolerance.absolute + tolerance.relativeToMax * largest;
        std::size_t worst = 0;
        double worstExcess = 0;
        std::size_t outliers = 0;
        for (std::size_t i = 0; i < want.size(); ++i) {
            const double diff = std::abs(double(got[i]) - double(want[i]));
            const double allowed = base + tolerance.relative * std::abs(want[i]);
            if (diff <= allowed)
                continue;
            // An outlier within its own bound; NaN (diff <= x is false) never is one.
            const bool outlier = diff <= tolerance.outlierAbsolute;
            outliers += outlier;
            const double excess = std::isnan(diff) ? 1e300 : diff - allowed;
            if (!outlier && excess > worstExcess) {
                worst = i;
                worstExcess = excess;
            }
        }
        const auto allowedOutliers
            = std::size_t(std::ceil(tolerance.outlierFraction * double(want.size())));
        if (worstExcess > 0) {
            std::ostringstream text;
            text.precision(9);
            text << what << ": tensor '" << name << "' element " << worst << " is " << got[worst]
                 << ", expected " << want[worst] << " (tolerance " << tolerance.absolute << " + "
                 << tolerance.relative << "·|expected| + " << tolerance.relativeToMax << " · "
                 << largest << ")";
            return badInput(text.str());
        }
        if (outliers > allowedOutliers)
            return badInput(what + ": tensor '" + name + "' has " + std::to_string(outliers)
                            + " elements outside the tolerance; at most "
                            + std::to_string(allowedOutliers) + " may be");
    }
    for (const auto &[name, values] : actual) {
        if (!expected.contains(name))
            return badInput(what + ": unexpected tensor '" + name + "'");
    }
    return okStatus();
}

} // namespace hetplan::runtime
