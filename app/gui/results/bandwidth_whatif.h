#pragma once

// What-if bandwidth changes of a cluster, for the sliders and the sweep: the edits themselves
// are core/model/bandwidth_edit.h. Plain C++ (no Qt): the sweep runs on a planning thread.

#include "core/base/result.h"
#include "core/cost/cost_model.h"
#include "core/cost/problem.h"
#include "core/model/bandwidth_edit.h"
#include "core/planners/planner.h"

#include <functional>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

namespace hetplan::gui {

// The same problem on a changed cluster (GPU types resolved against the built-in catalog).
Result<Problem> withCluster(const Problem &problem, const Cluster &cluster);

struct SweepPoint
{
    double bandwidthGBps = 0;
    double currentPlanS = 0; // the plan as it is, re-evaluated
    double currentPlanMfu = 0;
    std::optional<double> replannedS; // re-planned from the plan (warm start)
    double replannedMfu = 0;
    bool strategyChanged = false;
    std::string error; // why re-planning found nothing
};

// Iteration time and MFU of `plan` and of a re-plan started from it, for each bandwidth of
// `target`. Stops between points (and inside a re-plan) when `stop` is requested; reports
// each finished point.
std::vector<SweepPoint> sweepBandwidth(const Problem &problem, const CostModel &costModel,
                                       PlannerKind planner, const Plan &plan,
                                       const BandwidthTarget &target,
                                       std::span<const double> bandwidthsGBps, std::stop_token stop,
                                       const std::function<void(int done)> &onPoint);

} // namespace hetplan::gui
