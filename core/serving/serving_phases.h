#pragma once

// Per-phase serving figures of each replica, from the same cost-model terms as its request
// latency (docs/cost-models.md, "Serving, request by request"): the prefill of one prompt, and one
// decode step as a function of how many sequences decode together.

#include "core/base/result.h"
#include "core/serving/serving_request.h"
#include "core/serving/serving_stream.h"

#include <span>
#include <string>
#include <utility>
#include <vector>

namespace hetplan {

struct Plan;
struct Problem;
class CostModel;

struct ReplicaPhases
{
    bool fits = true; // false: a GPU of the replica is over capacity; it serves nothing
    // Prefill of one prompt alone, by prompt length (sorted by length).
    std::vector<std::pair<int, double>> prefillS;
    // One decode step with n sequences in the batch at decodeSPerToken[n - 1], n = 1..batch.
    std::vector<double> decodeSPerToken;
    // The 90 % interval of the replica's latency (core/cost/prediction_interval.h) as factors of
    // its phases: prefill and decode rest on the figures its latency rests on (its stages'
    // compute, TP and hops), so they scale alike (docs/cost-models.md, "Prediction intervals").
    // 1 and 1 without an interval.
    double lowFactor = 1;
    double highFactor = 1;

    // The prefill of a length the table holds (asserted).
    double prefillSOf(int promptTokens) const;
};

struct ServingPhases
{
    int batch = 1; // most sequences a replica decodes together (the workload's batch)
    std::vector<ReplicaPhases> replicas;
};

// Which end of the interval: every replica's phases times its lowFactor, or its highFactor.
enum class IntervalEnd { Low, High };

// `phases` at one end of their 90 % interval, factors reset to 1. Every replica at the same end:
// replicas of one GPU type or link class err together, and a percentile of the stream is
// monotone in every phase, so the stream's interval is the simulation at both ends.
ServingPhases phasesAt(const ServingPhases &phases, IntervalEnd end);

// For an inference problem and plan, with a prefill entry for every prompt length `requests`
// holds. The cost model's replica latency at batch b is prefill(b prompts) + s_out decode steps
// (HexGen Appendix B); a phase is that latency with the other phase's tokens set to zero:
// prefill = latency(b = 1, s_out = 0), decode per token at n sequences =
// (latency(b = n) − latency(b = n, s_out = 0)) / s_out at the workload's lengths.
ServingPhases servingPhases(const Problem &problem, const CostModel &costModel, const Plan &plan,
                            std::span<const ServingRequest> requests);

// The same with one prefill entry, at the workload's prompt length: the figures `evaluate`
// prints beside each replica's latency.
ServingPhases servingPhases(const Problem &problem, const CostModel &costModel, const Plan &plan);

// The dispatch weights of HexGen's traffic split: each replica's throughput at a full batch,
// batch / latency(b = batch), in requests per second; 0 for a replica that does not fit.
std::vector<double> replicaThroughputPerS(const Problem &problem, const CostModel &costModel,
                                          const Plan &plan);

// The requests of a serving run of `plan`, dispatched by replicaThroughputPerS: read from
// `traceFile` when it is given, else `stream`'s Poisson arrivals. What a run serves and what its
// simulation predicts start here alike.
Result<std::vector<ServingRequest>> servingRequests(const Problem &problem,
                                                    const CostModel &costModel, const Plan &plan,
                                                    const PoissonStream &stream,
                                                    const std::string &traceFile);

} // namespace hetplan
