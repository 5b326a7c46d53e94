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
// Knobs (PlannerOptions::knobs), with their defaults:
//   "iterations"    50   outer iterations, where the paper's search converged (§5.3);
//                        options.maxIterations wins when set
//   "balance"       1.2  phase-1 balance factor (max group tflops / average, §4.2)
//   "secondary_balance" 2.0  the same for phase 2's parts, which follow machines more than
//                        compute, so it is looser
//   "tau"           2    top-τ of the stage-order search (§4.3 step (iii))
//   "max_pipelines" 64   upper bound on K
//   "megatron_seed" 1    0: do not seed with the Megatron baseline
//   "polish"        20000 / GPUs, within [40, 1500]: neighbours evaluated by the final
//                        local search, per polished layout (0: none)
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
