#pragma once

#include "core/planners/planner.h"

namespace hetplan {

// The oracle (docs/architecture.md, planners): a provably complete enumeration of HexiScale's plan
// space on small clusters, to measure how far the heuristics are from the optimum. Refuses clusters
// past kMaxGpus GPUs or kMaxMachines machines (ErrorKind::Unsupported). The space and the
// completeness argument are spelled out in exhaustive.cpp.
// Knob "heuristic_seed" (default 1): start from HexiScale's plan as the incumbent, which only
// sharpens the bounds; 0 enumerates from nothing (same optimum, slower).
// Knob "max_plans" (default kDefaultMaxPlans): the size of the enumeration (structures x layer
// splits x micro-batch sizes) is counted before anything is evaluated, and a larger space is
// refused (ErrorKind::Unsupported) instead of running for hours: many layers make the layer
// splits explode even on a small cluster (C(L-1, p-1) per pipeline of p stages). The default
// keeps a run under ~15 s on one core even when no bound prunes anything (~1.5 us per plan);
// with the bounds it typically takes a second or two.
class ExhaustivePlanner final : public Planner
{
public:
    static constexpr int kMaxGpus = 8;
    static constexpr int kMaxMachines = 3;
    static constexpr long kDefaultMaxPlans = 10000000;

    PlannerKind kind() const override { return PlannerKind::Exhaustive; }

private:
    Result<PlanSearch> planImpl(const Problem &problem, const CostModel &costModel,
                                const PlannerOptions &options, std::stop_token stop,
                                ProgressSink &progress) const override;
};

} // namespace hetplan
