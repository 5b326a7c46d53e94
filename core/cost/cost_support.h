#pragma once

// Shared machinery of the cost models: how a Plan's stages become StageQuery views, the
// layer segments that data-parallel synchronisation is computed over, and the drivers that
// turn per-stage terms into a full Evaluation for training (1F1B pipelines + DP sync) and
// inference (one batch through each serving replica). Each model only supplies StageTerms.

#include "core/cost/cost_model.h"
#include "core/cost/evaluation.h"
#include "core/cost/problem.h"

#include <limits>
#include <span>
#include <vector>

namespace hetplan {

struct Plan;
struct Pipeline;
class PlanPaths;

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();
inline constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;

// Seconds to move `bytes` over `bytesPerS`; +inf over a missing link, 0 for nothing to move.
inline double transferS(double bytes, double bytesPerS)
{
    if (bytes <= 0)
        return 0;
    return bytesPerS > 0 ? bytes / bytesPerS : kInfinity;
}

// The GPUs of DP replica `replica` of a stage: `tp` consecutive entries of its GPU list.
inline std::span<const int> replicaGpus(const StageQuery &stage, int replica)
{
    return stage.gpus.subspan(static_cast<size_t>(replica * stage.tp),
                              static_cast<size_t>(stage.tp));
}

// Sequences replica `replica` processes per micro-batch (per batch for inference): its
// dp_split share of `stage.microBatch`, or an even split when dp_split is empty.
double replicaShare(const StageQuery &stage, int replica);

// The view of stage `stageIndex` of `pipeline` that evaluate hands to the same per-stage
// terms planners call. `microBatch` is the pipeline's (training) or the request batch
// (inference, HexGen's b_t). `paths`: the links its TP groups and its hop use (the plan's
// transports); without, the widest paths.
StageQuery stageQueryOf(const Pipeline &pipeline, int stageIndex, int microBatch,
                        const PlanPaths *paths = nullptr);

// The transformer layers cut at every stage boundary of every pipeline: inside one segment
// the same stages (hence the same GPUs) hold each layer, so per-layer DP terms are computed
// once per segment rather than once per layer.
struct LayerSegments
{
    std::vector<int> bounds;  // ascending; segment i is [bounds[i], bounds[i + 1])
    std::vector<int> holders; // segmentCount × pipelineCount: stage index, -1 if none
    int pipelineCount = 0;

    int segmentCount() const { return bounds.empty() ? 0 : int(bounds.size()) - 1; }
    int length(int segment) const { return bounds[size_t(segment) + 1] - bounds[size_t(segment)]; }
    int holder(int segment, int pipeline) const
    {
        return holders[size_t(segment) * size_t(pipelineCount) + size_t(pipeline)];
    }
    // Segments inside [layerBegin, layerEnd): [first, last).
    std::pair<int, int> segmentsOf(int layerBegin, int layerEnd) const;
    // Replicas holding the segment: Σ over pipelines of the holding stage's dp.
    int replicas(const Plan &plan, int segment) const;

    void build(const Plan &plan);
};

// What one cost model says about a stage; the drivers below assemble an Evaluation from it.
class StageTerms
{
public:
    virtual ~StageTerms() = default;

    // Per micro-batch (training) or per batch (inference): computeS, tpCommS, forwardS,
    // backwardS. hopS and dpCommS stay 0.
    virtual StageTiming stageTiming(const Problem &problem, const StageQuery &stage) const = 0;
    // Bytes each GPU of the stage needs, in the order of stage.gpus. `dpReplicas` is how many
    // replicas hold the stage's layers (for sharded optimizer state and DP buffers).
    virtual void stageMemory(const Problem &problem, const StageQuery &stage, int dpReplicas,
                             std::span<double> bytesPerGpu) const = 0;
    // Per micro-batch: forward activation plus backward gradient (training) or the forward
    // activations of prefill and decode (inference); 0 when `to` is empty.
    virtual double hopS(const Problem &problem, const StageQuery &from,
                        const StageQuery &to) const = 0;
    // Training only: gradient synchronisation of one iteration. Fills the per-stage figure
    // (flat: pipeline by pipeline, stage by stage) and returns the iteration's DP time.
    virtual double dataParallelS(const Problem &problem, const Plan &plan,
                                 const LayerSegments &segments,
                                 std::span<double> perStageS) const = 0;
};

// One stage as a planner asks about it: timing plus memory of its most loaded GPU; the
// stage's own dp is taken as the replica count (planners do not know the rest yet).
StageEstimate estimateStageWith(const StageTerms &terms, const Problem &problem,
                                const StageQuery &stage);

// Training: 1F1B closed form per pipeline (HexiScale eq. 9 with the max over all stages),
// iteration = slowest pipeline + DP sync. With `out`, fills the whole Evaluation; without,
// the fast path for searches: returns the iteration time, or +inf when a GPU overflows.
double evaluateTraining(const StageTerms &terms, const Problem &problem, const Plan &plan,
                        Evaluation *out);

// Inference: each pipeline is a serving replica; latency = Σ stage (compute + TP) + Σ hops
// (HexGen §4.2). The objective is the slowest replica. `out` as above.
double evaluateInference(const StageTerms &terms, const Problem &problem, const Plan &plan,
                         Evaluation *out);

} // namespace hetplan
