#include "runtime/serve/weight_source.h"

#include "runtime/model/model_init.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace hetplan::runtime {

WeightSource seededWeights(int layers, std::uint64_t seed)
{
    return [layers, seed](const TensorLayout &tensor, ElementRange range, std::span<float> out) {
        initialWeights(tensor, layers, seed, range, out);
        return okStatus();
    };
}

WeightSource dumpedWeights(const std::map<std::string, std::vector<float>> &weights)
{
    return
        [&weights](const TensorLayout &tensor, ElementRange range, std::span<float> out) -> Status {
            const auto found = weights.find(tensor.name);
            if (found == weights.end())
                return badInput("the weight dumps hold no tensor '" + tensor.name + "'");
            if (std::int64_t(found->second.size()) != tensor.elements())
                return badInput("the weight dumps' tensor '" + tensor.name + "' has "
                                + std::to_string(found->second.size()) + " elements; the model has "
                                + std::to_string(tensor.elements()));
            std::copy_n(found->second.begin() + range.begin, range.size(), out.begin());
            return okStatus();
        };
}

} // namespace hetplan::runtime
