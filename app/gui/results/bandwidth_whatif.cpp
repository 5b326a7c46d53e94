#include "results/bandwidth_whatif.h"

#include "core/catalog/catalog.h"

#include <algorithm>

namespace hetplan::gui {

std::vector<BandwidthTarget> bandwidthTargets(const Cluster &cluster)
{
    using Kind = BandwidthTarget::Kind;
    std::vector<BandwidthTarget> targets;
    if (!cluster.links.empty())
        targets.push_back({Kind::Network, -1});
    if (!cluster.machines.empty())
        targets.push_back({Kind::Intra, -1});
    for (int i = 0; i < int(cluster.links.size()); ++i)
        targets.push_back({Kind::Link, i});
    for (int m = 0; m < int(cluster.machines.size()); ++m)
        if (cluster.machines[size_t(m)].count > 1) // one GPU: nothing crosses its intra link
            targets.push_back({Kind::MachineIntra, m});
    return targets;
}

double drawnBandwidthGBps(const Cluster &cluster, const BandwidthTarget &target)
{
    using Kind = BandwidthTarget::Kind;
    double widest = 0;
    switch (target.kind) {
    case Kind::Network:
        for (const Link &l : cluster.links)
            widest = std::max(widest, l.bandwidthGBps);
        return widest;
    case Kind::Intra:
        for (const Machine &m : cluster.machines)
            widest = std::max(widest, m.intra.bandwidthGBps);
        return widest;
    case Kind::Link:
        return cluster.links[size_t(target.index)].bandwidthGBps;
    case Kind::MachineIntra:
        return cluster.machines[size_t(target.index)].intra.bandwidthGBps;
    }
    return widest;
}

namespace {

// Applies `change` to every bandwidth the target covers.
template<typename Change>
void forEachBandwidth(Cluster &cluster, const BandwidthTarget &target, Change change)
{
    using Kind = BandwidthTarget::Kind;
    switch (target.kind) {
    case Kind::Network:
        for (Link &l : cluster.links)
            change(l.bandwidthGBps);
        break;
    case Kind::Intra:
        for (Machine &m : cluster.machines)
            change(m.intra.bandwidthGBps);
        break;
    case Kind::Link:
        change(cluster.links[size_t(target.index)].bandwidthGBps);
        break;
    case Kind::MachineIntra:
        change(cluster.machines[size_t(target.index)].intra.bandwidthGBps);
        break;
    }
}

} // namespace

Cluster withBandwidth(Cluster cluster, const BandwidthTarget &target, double bandwidthGBps)
{
    forEachBandwidth(cluster, target, [&](double &value) { value = bandwidthGBps; });
    return cluster;
}

Cluster scaledCluster(Cluster cluster, std::span<const BandwidthTarget> targets,
                      std::span<const double> factors)
{
    for (size_t i = 0; i < targets.size() && i < factors.size(); ++i)
        if (factors[i] != 1.0)
            forEachBandwidth(cluster, targets[i], [&](double &value) { value *= factors[i]; });
    return cluster;
}

Result<Problem> withCluster(const Problem &problem, const Cluster &cluster)
{
    auto topology = Topology::build(cluster, GpuCatalog::builtin());
    if (!topology)
        return topology.error();
    return Problem{std::move(topology).value(), problem.model, problem.workload};
}

std::vector<SweepPoint> sweepBandwidth(const Problem &problem, const CostModel &costModel,
                                       PlannerKind planner, const Plan &plan,
                                       const BandwidthTarget &target,
                                       std::span<const double> bandwidthsGBps,
                                       std::stop_token stop,
                                       const std::function<void(int done)> &onPoint)
{
    std::vector<SweepPoint> points;
    auto maker = makePlanner(planner);
    for (double bandwidthGBps : bandwidthsGBps) {
        if (stop.stop_requested())
            break;
        SweepPoint point;
        point.bandwidthGBps = bandwidthGBps;
        auto changed = withCluster(problem,
                                   withBandwidth(problem.topology.cluster(), target, bandwidthGBps));
        if (!changed) {
            point.error = changed.error().message;
            points.push_back(std::move(point));
            continue;
        }
        const Evaluation current = costModel.evaluate(*changed, plan);
        point.currentPlanS = current.iterationS;
        point.currentPlanMfu = current.mfu;
        if (!maker) {
            point.error = maker.error().message;
        } else {
            PlannerOptions options;
            options.warmStart = plan;
            NullProgress quiet;
            auto replanned = (*maker)->plan(*changed, costModel, options, stop, quiet);
            if (replanned) {
                point.replannedS = replanned->evaluation.iterationS;
                point.replannedMfu = replanned->evaluation.mfu;
                point.strategyChanged = !replanned->plan.sameLayout(plan);
            } else {
                point.error = replanned.error().message;
            }
        }
        points.push_back(std::move(point));
        if (onPoint)
            onPoint(int(points.size()));
    }
    return points;
}

} // namespace hetplan::gui
