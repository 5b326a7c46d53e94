#pragma once

// The request stream a serving run serves, made the same on every rank from the plan and the
// command line (docs/runtime.md, "Serving runs"): Poisson arrivals at the workload's
// request_rate (or --rate), seeded, or the arrivals and lengths of a trace file; each request
// sent to a replica in turn. Prompt and output lengths are the workload's (or the trace's)
// divided by --scale, as the training sequence is, at least 1 token each.

#include "core/base/result.h"
#include "core/plan/plan.h"
#include "core/serving/serving_request.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hetplan::runtime {

struct RequestStreamOptions
{
    int requests = 0;           // this many; 0: every arrival in durationS
    double durationS = 0;       // with requests 0
    std::optional<double> rate; // requests per second; absent: the workload's request_rate
    std::string trace;          // a file of "ARRIVAL_S PROMPT_TOKENS OUTPUT_TOKENS" lines
    std::uint64_t seed = 0;
    int scale = 1;
};

// Errors (BadInput) name the option or the trace file and line.
Result<std::vector<ServingRequest>> makeRequests(const Plan &plan,
                                                 const RequestStreamOptions &options);

} // namespace hetplan::runtime
