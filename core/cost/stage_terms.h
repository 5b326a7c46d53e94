#pragma once

#include "core/cost/problem.h"
#include "core/cost/stage_query.h"
#include "core/plan/estimate.h"

#include <span>

namespace hetplan {

struct Plan;
struct LayerSegments;
class PlanPaths;

struct HopTiming
{
    double totalS = 0;   // forward activation plus backward gradient, per micro-batch
    double forwardS = 0; // the activation's part
    // Where one side of the hop has several DP replicas and the other side one, each of those
    // replicas carries only its own rows: the slowest one's transfer as if it had its links to
    // itself, per direction. 0 where no side is so.
    double forwardOwnS = 0;
    double backwardOwnS = 0;
};

// What one cost model says about a stage, and nothing more: CostModel (core/cost/cost_model.h)
// assembles an Evaluation from it. Terms call only the helpers below them (cost_helpers.h).
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
    // hopS and its forward part (the activation; the rest is the gradient), computed once.
    // Default: the two directions alike, as the paper models charge them.
    virtual HopTiming hopTiming(const Problem &problem, const StageQuery &from,
                                const StageQuery &to) const
    {
        const double totalS = hopS(problem, from, to);
        return {totalS, totalS / 2};
    }
    // Training only: gradient synchronisation of one iteration over the links `paths` allows
    // (the plan's, built once per evaluation). Fills the per-stage figure (flat: pipeline by
    // pipeline, stage by stage) and returns the iteration's DP time.
    virtual double dataParallelS(const Problem &problem, const Plan &plan, const PlanPaths &paths,
                                 const LayerSegments &segments,
                                 std::span<double> perStageS) const = 0;
};

} // namespace hetplan
