#pragma once

// The request stream a serving run serves, made the same on every rank from the plan and the
// command line (docs/runtime.md, "Serving runs"). It is core's servingRequests (one owner of the
// arrivals and the dispatch, core/serving/serving_stream.h): seeded Poisson arrivals at the
// workload's request_rate (or --rate), or a trace file, each request sent to a replica by the
// plan's traffic split (replica throughput), so the simulator sees the same requests on the same
// replicas. Prompt and output lengths are the workload's (or the trace's) divided by --scale, as
// the training sequence is, at least 1 token each.

#include "core/base/result.h"
#include "core/cost/problem.h"
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

// `problem` is the plan's at full size (its topology, model and workload): the traffic split
// is the plan's, whatever --scale the run serves at. Errors (BadInput) name the option or the
// trace file and line.
Result<std::vector<ServingRequest>> makeRequests(const Problem &problem, const Plan &plan,
                                                 const RequestStreamOptions &options);

} // namespace hetplan::runtime
