#pragma once

// What-if bandwidth changes of a cluster, for the sliders and the sweep. Plain C++ (no Qt):
// the sweep runs on a planning thread.

#include "core/base/result.h"
#include "core/cost/cost_model.h"
#include "core/cost/problem.h"
#include "core/planners/planner.h"

#include <functional>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

namespace hetplan::gui {

// What one slider moves: every network link, every machine's intra link, one network link
// (index into Cluster::links) or the intra link of one machine (index into machines).
struct BandwidthTarget
{
    enum class Kind { Network, Intra, Link, MachineIntra } kind = Kind::Network;
    int index = -1;

    bool operator==(const BandwidthTarget &) const = default;
};

// The classes first, then each link, then each machine's intra link.
std::vector<BandwidthTarget> bandwidthTargets(const Cluster &cluster);
// The bandwidth a target has as drawn; for a class, its widest member.
double drawnBandwidthGBps(const Cluster &cluster, const BandwidthTarget &target);
// Sets every link the target covers to `bandwidthGBps`.
Cluster withBandwidth(Cluster cluster, const BandwidthTarget &target, double bandwidthGBps);
// Multiplies each link's bandwidth by its own factor and its class's (factors[i] belongs to
// targets[i]); the slider positions of a what-if.
Cluster scaledCluster(Cluster cluster, std::span<const BandwidthTarget> targets,
                      std::span<const double> factors);

// The same problem on a changed cluster (GPU types resolved against the built-in catalog).
Result<Problem> withCluster(const Problem &problem, const Cluster &cluster);

struct SweepPoint
{
    double bandwidthGBps = 0;
    double currentPlanS = 0;        // the plan as it is, re-evaluated
    double currentPlanMfu = 0;
    std::optional<double> replannedS; // re-planned from the plan (warm start)
    double replannedMfu = 0;
    bool strategyChanged = false;
    std::string error;              // why re-planning found nothing
};

// Iteration time and MFU of `plan` and of a re-plan started from it, for each bandwidth of
// `target`. Stops between points (and inside a re-plan) when `stop` is requested; reports
// each finished point.
std::vector<SweepPoint> sweepBandwidth(const Problem &problem, const CostModel &costModel,
                                       PlannerKind planner, const Plan &plan,
                                       const BandwidthTarget &target,
                                       std::span<const double> bandwidthsGBps,
                                       std::stop_token stop,
                                       const std::function<void(int done)> &onPoint);

} // namespace hetplan::gui
