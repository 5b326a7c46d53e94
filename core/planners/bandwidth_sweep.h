#pragma once

// The bandwidth sweep of `hetplan-cli sweep` and of the app's What-if tab, in one place: for each
// bandwidth, the plan as it is re-evaluated on the changed cluster, and a re-plan started from it.

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

namespace hetplan {

// The same model and workload on a cluster with changed bandwidths (GPU types as the problem's
// topology resolved them: Topology::rebuilt); fails as Topology::build does.
Result<Problem> withCluster(const Problem &problem, const Cluster &cluster);

// Sets every bandwidth each target covers to `bandwidthGBps`.
Cluster withBandwidth(Cluster cluster, std::span<const BandwidthTarget> targets,
                      double bandwidthGBps);

struct SweepPoint
{
    double bandwidthGBps = 0;
    double currentPlanS = 0; // the plan as it is, re-evaluated
    double currentPlanMfu = 0;
    std::optional<double> replannedS; // re-planned from the plan (warm start)
    double replannedMfu = 0;
    int replannedPipelines = 0;
    bool strategyChanged = false;
    std::string error; // why re-planning found nothing (empty when it found a plan)
};

struct SweepRequest
{
    PlannerKind planner = PlannerKind::HexiScale;
    PlannerOptions options; // of each re-plan; its warm start is set to `plan`
    std::vector<BandwidthTarget> targets;
    std::vector<double> bandwidthsGBps;
};

// One point per bandwidth of the request, in order, each passed to `onPoint` as it is done (may
// be empty). Stops between points, and inside a re-plan, when `stop` is requested: the points
// returned are then the ones finished.
std::vector<SweepPoint> sweepBandwidth(const Problem &problem, const CostModel &costModel,
                                       const Plan &plan, const SweepRequest &request,
                                       const std::stop_token &stop,
                                       const std::function<void(const SweepPoint &)> &onPoint);

} // namespace hetplan
