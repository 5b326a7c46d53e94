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
// Knobs (PlannerOptions::knobs), with their defaults:
//   "generations"        200  generations from a K-means start (options.maxIterations wins)
//   "replan_generations"  60  generations from a warm start
//   "population"          16  individuals kept per generation (and offspring per generation)
//   "patience"            40  stop after this many generations without improvement
//   "max_stages"           8  pipeline stages per replica (the deepest in the paper's Table 3)
//   "requests"          1000  simulated requests per fitness evaluation
//   "prefer_replicas"      1  ties on attainment: 1 more replicas first (Appendix F), 0 the
//                             higher sustainable rate first
class HexGenPlanner final : public Planner
{
public:
    // `offlineGpus`: flat GPU indices the plan must not use (GPUs that left, §5.3).
    explicit HexGenPlanner(std::vector<int> offlineGpus = {})
        : m_offlineGpus(std::move(offlineGpus))
    {}

    PlannerKind kind() const override { return PlannerKind::HexGen; }

private:
    Result<PlanSearch> planImpl(const Problem &problem, const CostModel &costModel,
                                const PlannerOptions &options, std::stop_token stop,
                                ProgressSink &progress) const override;

    std::vector<int> m_offlineGpus;
};

} // namespace hetplan
