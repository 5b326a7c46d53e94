#pragma once

#include "core/planners/planner.h"

#include <vector>

namespace hetplan {

// HexGen (Jiang et al., ICML'24, §4): inference serving on heterogeneous GPUs. A genetic
// search over partitions of the GPUs into pipeline groups (§4.3: K-means initialisation on
// the communication matrix with the elbow method, merge / split / swap mutations, early
// rejection of groups that cannot hold one copy of the model), with one more start and
// mutation that pack a cluster with as many replicas as its memory allows (Appendix F, see
// ReplicaPacker); each group's replica layout by dynamic programming over GPU count vectors
// (§4.2) with layers proportional to stage memory; fitness = SLO attainment of the simulated
// Poisson request stream (core/serving) at the workload's rate (Eq. 1), ties broken by more
// replicas within the SLO and then the highest sustainable rate (see ServingFitness).
//
// The search trace and progress report cost = 1 − attainment (dimensionless, in the seconds
// field): 0 is every request within the SLO.
//
// Re-planning (§5.3, GPUs leaving): with a warm start the search starts from the warm plan's
// groups (GPUs that are offline or no longer in the cluster dropped) and searches locally
// with fewer generations; it never returns a plan worse than the warm start when that plan
// is still valid.
//
// Settings: PlannerOptions::parameters.hexgen (planner_params.h, with ranges and defaults in
// planner_params.cpp); options.maxIterations wins over the generations setting when set.
// PlannerOptions::excludedGpus are the GPUs that left (§5.3): the plan never uses them.
class HexGenPlanner final : public Planner
{
public:
    PlannerKind kind() const override { return PlannerKind::HexGen; }

private:
    Result<PlanSearch> planImpl(const Problem &problem, const CostModel &costModel,
                                const PlannerOptions &options, std::stop_token stop,
                                ProgressSink &progress) const override;
};

} // namespace hetplan
