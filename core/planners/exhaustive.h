#pragma once

#include "core/planners/planner.h"

namespace hetplan {

// The oracle (DESIGN.md, Planners): a provably complete enumeration of HexiScale's plan space
// on small clusters, to measure how far the heuristics are from the optimum. Refuses clusters
// past kMaxGpus GPUs or kMaxMachines machines (ErrorKind::Unsupported). The space and the
// completeness argument are spelled out in exhaustive.cpp.
// Setting heuristic_seed (PlannerOptions::parameters.exhaustive): start from HexiScale's plan
// as the incumbent, which only sharpens the bounds; 0 enumerates from nothing (same optimum,
// slower). Setting max_plans: the size of the enumeration (structures x layer
// splits x micro-batch sizes) is counted before anything is evaluated, and a larger space is
// refused (ErrorKind::Unsupported) instead of running for hours: many layers make the layer
// splits explode even on a small cluster (C(L-1, p-1) per pipeline of p stages). With the
// bounds a run at the default budget typically takes a second or two.
class ExhaustivePlanner final : public Planner
{
public:
    static constexpr int kMaxGpus = 8;
    static constexpr int kMaxMachines = 3;
    static constexpr long kDefaultMaxPlans = long(ExhaustiveParameters{}.maxPlans);

    PlannerKind kind() const override { return PlannerKind::Exhaustive; }

private:
    Result<PlanSearch> planImpl(const Problem &problem, const CostModel &costModel,
                                const PlannerOptions &options, std::stop_token stop,
                                ProgressSink &progress) const override;
};

} // namespace hetplan
