#include "runtime/serve/sampling.h"

#include "runtime/model/counter_hash.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace hetplan::runtime {

namespace {
// The stream of the sampling uniforms, apart from every tensor's (those are name hashes).
constexpr std::uint64_t kSamplingStream = 0x73616d706c696e67ULL; // "sampling"
} // namespace

int greedyToken(std::span<const float> logits)
{
    return int(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

int sampleToken(std::span<const float> logits, const SamplingOptions &options, int requestId,
                int position)
{
    if (options.temperature <= 0)
        return greedyToken(logits);
    const float top = *std::max_element(logits.begin(), logits.end());
    std::vector<double> weights(logits.size());
    double total = 0;
    for (std::size_t i = 0; i < logits.size(); ++i) {
        weights[i] = std::exp((double(logits[i]) - top) / options.temperature);
        total += weights[i];
    }
    const std::uint64_t stream = kSamplingStream ^ std::uint64_t(std::uint32_t(requestId));
    const double u
        = counter_hash::uniform(counter_hash::key(options.seed, stream, std::uint64_t(position)))
          * total;
    double below = 0;
    for (std::size_t i = 0; i < weights.size(); ++i) {
        below += weights[i];
        if (u < below)
            return int(i);
    }
    return int(weights.size()) - 1; // u rounded up to the total
}

} // namespace hetplan::runtime
