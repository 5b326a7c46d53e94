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
// Settings: PlannerOptions::parameters.metis (planner_params.h, with ranges and defaults in
// planner_params.cpp).
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
