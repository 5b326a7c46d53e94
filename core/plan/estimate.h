#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace hetplan {

// Where an iteration's time goes. For training the parts add up to the iteration time:
// compute, TP and PP communication are the busy time of the critical pipeline's bottleneck
// stage over all its micro-batches, bubble is the rest of that pipeline's time, and DP is the
// gradient synchronisation after it. For inference, the critical replica's request latency.
struct Breakdown
{
    double computeS = 0;
    double tpCommS = 0;
    double ppCommS = 0;
    double dpCommS = 0;
    double bubbleS = 0;

    double totalS() const { return computeS + tpCommS + ppCommS + dpCommS + bubbleS; }
};

struct GpuMemory
{
    int gpu = 0; // flat Topology index
    double usedGiB = 0;
    double capacityGiB = 0;
    bool fits() const { return usedGiB <= capacityGiB; }
};

// Per micro-batch times of one stage (what the 1F1B timeline is drawn from).
struct StageTiming
{
    double forwardS = 0;  // compute + TP comm of the forward pass
    double backwardS = 0; // compute + TP comm of the backward pass (with recomputation)
    double computeS = 0;  // forward + backward compute
    double tpCommS = 0;   // forward + backward TP communication
    double hopS = 0;      // to the next stage, forward activation + backward gradient
    double dpCommS = 0;   // this stage's gradient synchronisation per iteration
    // Of hopS, the forward activation (the rest is the backward gradient).
    double hopForwardS = 0;
    // Of backwardS, the optimizer step's share: it runs once per iteration, after the gradient
    // sync, and each micro-batch carries 1/m of it (0 where a model does not price it apart).
    double optimizerS = 0;
    // Where this stage or the next has several DP replicas and the other one: a replica's own
    // transfer of the hop, forward and backward, as if it had its links to itself (0 otherwise).
    double hopForwardOwnS = 0;
    double hopBackwardOwnS = 0;
    double totalS() const { return computeS + tpCommS + hopS; }
};

struct PipelineTiming
{
    double timeS = 0; // without DP sync
    std::vector<StageTiming> stages;
    Breakdown breakdown;
};

// Inference under load (core/serving): the plan's replicas serving a Poisson stream of
// requests at the workload's rate, each request one batch of b_t sequences.
struct ServingFigures
{
    double requestRatePerS = 0;
    double sloS = 0;              // the latency target, absolute or scale × reference
    double referenceLatencyS = 0; // what slo_scale multiplies (0 when slo_s was given)
    double attainment = 0;        // fraction of requests within the SLO at requestRatePerS
    double p50S = 0;              // request latency percentiles at requestRatePerS
    double p99S = 0;
    double targetAttainment = 0; // what maxRatePerS is the highest rate for
    double maxRatePerS = 0;      // highest rate that still reaches targetAttainment
};

// A time the cost model is 90 % sure of: the measured time should fall in [loS, hiS]
// (docs/cost-models.md, "Prediction intervals").
struct TimeInterval
{
    double loS = 0;
    double hiS = 0;
    bool operator==(const TimeInterval &) const = default;
};

// How sure an Evaluation is, from where the figures it used came from (core/cost/
// prediction_interval.h owns how it is computed).
struct PredictionInterval
{
    double confidence = 0.9;
    TimeInterval iteration;
    // Of the Breakdown's parts.
    TimeInterval computeS;
    TimeInterval tpCommS;
    TimeInterval ppCommS;
    TimeInterval dpCommS;
    TimeInterval bubbleS;
    std::vector<TimeInterval> replicaLatency; // inference: one per replica
    // What the plan runs on that no figure was measured for (catalog figures only): GPU type
    // names and link class names ("nvlink", "ethernet"), sorted.
    std::vector<std::string> extrapolatedGpuTypes;
    std::vector<std::string> extrapolatedLinks;
    bool extrapolates() const
    {
        return !extrapolatedGpuTypes.empty() || !extrapolatedLinks.empty();
    }
};

// The result of evaluating one plan with one cost model.
struct Evaluation
{
    bool valid = true;
    std::vector<std::string> errors; // why the plan is invalid or does not fit
    double iterationS = 0;           // training: one iteration; inference: slowest replica
    double mfu = 0;                  // model FLOPs utilisation, docs/cost-models.md
    double tokensPerS = 0;
    Breakdown breakdown;
    std::vector<GpuMemory> memory; // every GPU the plan uses
    std::vector<PipelineTiming> pipelines;
    std::optional<double> costPerIterationUsd; // when every used GPU has a price
    std::optional<double> costPerMillionTokensUsd;
    // Inference: per-replica request latency (prefill + decode) for one batch.
    std::vector<double> replicaLatencyS;
    // Inference: filled by whoever simulates serving (core/serving); cost models leave it.
    std::optional<ServingFigures> serving;
    // The 90 % interval of iterationS, its parts and the replicas' latency; empty for an
    // invalid plan or one read from a file.
    std::optional<PredictionInterval> interval;

    bool fitsInMemory() const;
    // What searches minimise (CostModel::objectiveS): iterationS, or +infinity when the plan
    // is invalid or does not fit in memory.
    double objectiveS() const;
};

inline bool Evaluation::fitsInMemory() const
{
    for (const GpuMemory &m : memory)
        if (!m.fits())
            return false;
    return true;
}

inline double Evaluation::objectiveS() const
{
    return valid && fitsInMemory() ? iterationS : std::numeric_limits<double>::infinity();
}

} // namespace hetplan
