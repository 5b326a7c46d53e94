#pragma once

// What a serving run measured (hetplan.serving-measurement/1, docs/formats.md, "Serving
// measurement"), and the one owner of its figures: the percentiles, the attainment and the
// per-replica means are computed here from the requests, by the runtime that writes the file and by
// the simulation it is compared with alike.

#include "core/model/backend_kind.h"
#include "core/serving/serving_request.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace hetplan {

// How the run was made.
struct ServingRun
{
    BackendKind backend = BackendKind::Gloo;
    std::string planFile;
    std::string planDigest; // core/plan/plan_digest.h of the plan it served
    std::string model;
    int scale = 1;
    int promptTokens = 0; // the workload's lengths (a trace may give others per request)
    int outputTokens = 0;
    int batch = 1;         // most sequences a replica decodes together
    std::string traceFile; // the arrivals' trace; empty: Poisson from seed and rate
    std::uint64_t seed = 1;
    double requestRatePerS = 0;
    double sloS = 0;
    int warmupRequests = 0;  // the first ones, by id, are served but not measured
    double windowBeginS = 0; // the measured window: first measured arrival to last finish
    double windowEndS = 0;
    std::vector<std::string> hosts;
};

// Mean and percentiles of one figure over the measured completed requests; all 0 without any.
struct LatencyStats
{
    double meanS = 0;
    double p50S = 0;
    double p90S = 0;
    double p99S = 0;
};

struct ServingSummary
{
    int requests = 0; // every request of the stream, warm-up included
    int warmup = 0;
    int completed = 0;
    int failed = 0;       // completed + failed = requests
    LatencyStats ttft;    // time to first token: firstTokenS − arrivalS
    LatencyStats tpot;    // time per output token after the first, requests of 2+ tokens
    LatencyStats latency; // end to end: finishS − arrivalS
    // Measured requests completed within the SLO over all measured requests (failed = missed).
    double attainment = 0;
    double outputTokensPerS = 0; // measured output tokens over the measured window
};

// One replica: its requests (warm-up included) and means over its measured completed ones.
struct ServedReplica
{
    int replica = 0;
    std::vector<std::string> gpus; // GPU names, in rank order
    std::vector<int> ranks;
    int requests = 0;
    int completed = 0;
    int failed = 0;
    double meanPrefillS = 0; // firstTokenS − admittedS
    double meanTpotS = 0;    // (finishS − firstTokenS) / (outputTokens − 1)
    double meanQueueS = 0;   // admittedS − arrivalS
    std::string failure;     // why its requests failed; empty when none did
};

struct ServingMeasurement
{
    ServingRun run;
    ServingSummary summary;
    std::vector<ServedReplica> replicas;
    std::vector<ServedRequest> requests; // by id
};

// The percentile q ∈ [0, 1] by linear interpolation between closest ranks (NumPy's default,
// as vLLM's benchmark_serving reports); 0 for no values.
double percentileOf(std::vector<double> values, double q);

// The measured window: from the first measured request's arrival to the last measured finish.
void setMeasuredWindow(ServingRun &run, std::span<const ServedRequest> requests);

ServingSummary summarizeServed(std::span<const ServedRequest> requests, double sloS,
                               double windowS);

// One entry per replica 0..replicaCount−1 (GPUs and ranks left to the caller); a replica's
// failure is the first failure among its requests.
std::vector<ServedReplica> servedReplicas(std::span<const ServedRequest> requests,
                                          int replicaCount);

// What a run does after serving: the window, the summary and every replica's figures from
// m.requests and m.run. m.replicas holds one entry per replica, whose GPUs and ranks it keeps.
void summarizeMeasurement(ServingMeasurement &m);

} // namespace hetplan
