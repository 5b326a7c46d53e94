#include "core/model/bandwidth_edit.h"

#include <algorithm>
#include <cassert>

namespace hetplan {

namespace {

// Calls `visit` with every bandwidth the target covers; `ClusterT` is Cluster to change them
// or const Cluster to read them.
template<typename ClusterT, typename Visit>
void forEachBandwidth(ClusterT &cluster, const BandwidthTarget &target, Visit visit)
{
    using Kind = BandwidthTarget::Kind;
    switch (target.kind) {
    case Kind::Network:
        for (auto &l : cluster.links)
            visit(l.bandwidthGBps);
        return;
    case Kind::Intra:
        for (auto &m : cluster.machines)
            visit(m.intra.bandwidthGBps);
        return;
    case Kind::Link:
        assert(target.index >= 0 && size_t(target.index) < cluster.links.size());
        visit(cluster.links[size_t(target.index)].bandwidthGBps);
        return;
    case Kind::MachineIntra:
        assert(target.index >= 0 && size_t(target.index) < cluster.machines.size());
        visit(cluster.machines[size_t(target.index)].intra.bandwidthGBps);
        return;
    }
}

} // namespace

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
        if (cluster.machines[size_t(m)].count > 1)
            targets.push_back({Kind::MachineIntra, m});
    return targets;
}

std::vector<BandwidthTarget> linksBetween(const Cluster &cluster, std::string_view a,
                                          std::string_view b)
{
    std::vector<BandwidthTarget> links;
    for (int i = 0; i < int(cluster.links.size()); ++i) {
        const Link &l = cluster.links[size_t(i)];
        if ((l.a == a && l.b == b) || (l.a == b && l.b == a))
            links.push_back({BandwidthTarget::Kind::Link, i});
    }
    return links;
}

double drawnBandwidthGBps(const Cluster &cluster, const BandwidthTarget &target)
{
    double widestGBps = 0;
    forEachBandwidth(cluster, target,
                     [&](double valueGBps) { widestGBps = std::max(widestGBps, valueGBps); });
    return widestGBps;
}

Cluster withBandwidth(Cluster cluster, const BandwidthTarget &target, double bandwidthGBps)
{
    forEachBandwidth(cluster, target, [&](double &valueGBps) { valueGBps = bandwidthGBps; });
    return cluster;
}

Cluster scaledCluster(Cluster cluster, std::span<const BandwidthTarget> targets,
                      std::span<const double> factors)
{
    for (size_t i = 0; i < targets.size() && i < factors.size(); ++i)
        if (factors[i] != 1.0)
            forEachBandwidth(cluster, targets[i],
                             [&](double &valueGBps) { valueGBps *= factors[i]; });
    return cluster;
}

Result<Topology> scaledTopology(const Topology &topology, std::span<const BandwidthTarget> targets,
                                std::span<const double> factors)
{
    return topology.rebuilt(scaledCluster(topology.cluster(), targets, factors));
}

} // namespace hetplan
