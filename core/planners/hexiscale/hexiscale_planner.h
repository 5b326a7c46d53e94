#pragma once

#include "core/planners/planner.h"

namespace hetplan {

// HexiScale (Yan et al., §4): two-phase hierarchical graph partitioning, iterated (§4.4).
// Phase 1 splits the GPU graph into K pipelines with METIS; phase 2 builds each pipeline's
// stages (TP inside one machine), orders them along high bandwidth and assigns layers; the
// micro-batches are spread so the pipelines' times balance. The outer loop varies K, the
// secondary part counts k_i, the cut option (from a moving average of simulated DP versus PP
// communication) and the TP policy, keeping the best plan; it also starts from the warm start
// and from the Megatron baseline, so it never returns anything slower than either.
//
// Settings: PlannerOptions::parameters.hexiscale (planner_params.h; the table in
// planner_params.cpp gives each one's range, default and meaning); options.maxIterations
// wins over the iterations setting when set.
class HexiScalePlanner final : public Planner
{
public:
    PlannerKind kind() const override { return PlannerKind::HexiScale; }

private:
    Result<PlanSearch> planImpl(const Problem &problem, const CostModel &costModel,
                                const PlannerOptions &options, std::stop_token stop,
                                ProgressSink &progress) const override;
};

} // namespace hetplan
