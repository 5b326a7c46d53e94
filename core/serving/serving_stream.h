#pragma once

// The request stream of a serving run and of its simulation, one owner for both
// (docs/cost-models.md, "Serving, request by request"): seeded Poisson arrivals or a trace file,
// and the dispatch of each request to a replica by HexGen's traffic split.

#include "core/base/result.h"
#include "core/serving/serving_request.h"

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hetplan {

// Most requests one stream holds, from a rate and duration or from a trace.
inline constexpr int kMaxStreamRequests = 1 << 22;
// Most tokens one request may ask for in or out.
inline constexpr int kMaxRequestTokens = 1 << 20;

// An exponential(1) draw by inversion of a uniform from the top 53 bits: the same stream on
// every standard library (std::exponential_distribution is implementation-defined).
double unitExponential(std::mt19937_64 &rng);

struct PoissonStream
{
    std::uint64_t seed = 1;
    double ratePerS = 1;
    // How many requests: `requests` when > 0, else every arrival before `durationS`.
    int requests = 0;
    double durationS = 0;
    int promptTokens = 512;
    int outputTokens = 128;
};

// Arrivals with exponential gaps of mean 1/ratePerS from the seed, every request of the given
// lengths, ids from 0, no replica yet. Capped at kMaxStreamRequests.
std::vector<ServingRequest> poissonRequests(const PoissonStream &stream);

// A trace: one request per line, "arrival_s prompt_tokens output_tokens" separated by spaces,
// tabs or commas; '#' starts a comment; blank lines are skipped. Arrivals are seconds from the
// stream's start, non-decreasing. Errors name `source`, the line and the field.
Result<std::vector<ServingRequest>> parseServingTrace(std::string_view text,
                                                      std::string_view source);
Result<std::vector<ServingRequest>> loadServingTrace(const std::string &path);

// One step of smooth weighted round robin over `weight` (0 or not finite: never chosen): every
// other replica gains its weight in `credit`, the one with the most credit (the lowest index on
// a tie) is chosen and pays `totalWeight`, the sum of the positive weights. Returns its index,
// or weight.size() when no weight is positive. `credit` starts at 0, one entry per replica.
std::size_t nextWeightedReplica(std::span<const double> weight, double totalWeight,
                                std::span<double> credit);

// HexGen's traffic split: each request goes to a replica in proportion to the replica's
// throughput, by smooth weighted round robin (the nginx scheme: every replica gains its weight,
// the one with most credit takes the request and pays the total). It depends on the request's
// position only, so the same stream gets the same replicas every time. A replica of weight 0
// (it does not fit in memory) gets nothing; with no positive weight every replica stays -1.
void dispatchRequests(std::span<ServingRequest> requests, std::span<const double> replicaWeight);

} // namespace hetplan
