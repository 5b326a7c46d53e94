#pragma once

// How the last stage turns a row of logits into the next token (docs/runtime.md, "Serving runs"):
// greedy (the largest logit; the lowest index among equals), or sampling from softmax(logits / T)
// with a uniform that is a pure function of (seed, request id, position), so a request's tokens
// do not depend on the replica, the batch it shares or the plan's cuts.

#include <cstdint>
#include <span>

namespace hetplan::runtime {

struct SamplingOptions
{
    double temperature = 0; // 0: greedy
    std::uint64_t seed = 0;
};

int greedyToken(std::span<const float> logits);

// `position`: the position the new token will take in the sequence.
int sampleToken(std::span<const float> logits, const SamplingOptions &options, int requestId,
                int position);

} // namespace hetplan::runtime
