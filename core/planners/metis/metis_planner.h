#pragma once

#include "core/planners/planner.h"

namespace hetplan {

// Metis (Um et al., ATC'24, §4): one pipeline whose stages run on device groups, each stage
// data-parallel first with uneven micro-batch shares over mixed GPUs, TP raised or layers
// moved only where memory runs out (Algorithm 1). The search walks stage counts (one
// iteration each) × device-group sequences × micro-batch counts, pruned as §4.2.2 says, and
// ranks what it finds by the Metis cost (eq. 1) built from the chosen cost model's stage and
// hop estimates; the few best by that cost are then judged by the chosen cost model itself,
// like every other planner's plans. Never returns anything slower than the warm start.
//
// Knobs (PlannerOptions::knobs), with their defaults:
//   "variance"                0.5  §4.2.2 var: device groups smaller than
//                                  GPUs / stages · (1 − var) are not explored (Table 4)
//   "max_permutation_length"  10   §4.2.2: the smallest groups are paired until at most this
//                                  many blocks are permuted (Table 4)
//   "sequences"               16   device-group sequences examined per stage count:
//                                  HetPlan's bound on the paper's enumeration (600 s of
//                                  search on 64 GPUs, §5.4); plans barely change beyond 8
//   "top"                     8    candidates kept by Metis cost for the cost model to judge
// options.maxIterations bounds the stage counts visited; options.seed picks which block orders
// are examined when there are more than the bound allows.
class MetisPlanner final : public Planner
{
public:
    PlannerKind kind() const override { return PlannerKind::Metis; }

private:
    Result<PlanSearch> planImpl(const Problem &problem, const CostModel &costModel,
                                const PlannerOptions &options, std::stop_token stop,
                                ProgressSink &progress) const override;
};

} // namespace hetplan
