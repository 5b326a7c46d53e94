#pragma once

#include "core/planners/planner.h"

namespace hetplan {

// Holmes (training across NIC types, §3): fabrics from the machines' NIC kinds; tensor
// parallelism inside a node (eq. 1), pipeline stages placed fabric by fabric so that only the
// pipeline crosses fabrics, over Ethernet (eq. 2), data-parallel groups inside one fabric over
// its own RDMA kind (eq. 3, §3.2), the layers of each fabric by the self-adapting partition
// (eq. 4–5) corrected for memory. Searches the degrees (d, p, t), the micro-batch, which
// fabrics take part and their order, keeping the fastest plan that fits. Every stage records
// its transports (Plan: StageTransport), for the launcher's per-group NIC selection. The
// search is an enumeration, so it is deterministic; the seed is not used.
//
// Settings: PlannerOptions::parameters.holmes (alpha, the α of eq. 4–5; planner_params.h).
class HolmesPlanner final : public Planner
{
public:
    PlannerKind kind() const override { return PlannerKind::Holmes; }

private:
    Result<PlanSearch> planImpl(const Problem &problem, const CostModel &costModel,
                                const PlannerOptions &options, std::stop_token stop,
                                ProgressSink &progress) const override;
};

} // namespace hetplan
