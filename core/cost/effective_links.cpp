#include "core/cost/effective_links.h"

#include "core/catalog/transports.h"

#include <algorithm>
#include <cmath>

namespace hetplan {

EffectiveLinks::EffectiveLinks(const Topology &topology)
    : m_topology(topology)
{
    const Cluster &cluster = topology.cluster();
    for (const TransportFigures &t : defaultTransports()) {
        const TransportFigures &used = transportFigures(cluster, t.kind);
        const bool own = std::any_of(cluster.transports.begin(), cluster.transports.end(),
                                     [&](const TransportFigures &c) { return c.kind == t.kind; });
        m_figures[static_cast<size_t>(t.kind)] = {used.efficiency, used.latencyUs * 1e-6,
                                                  used.latencyFactor, used.lossPerDoubling, own};
    }
}

double EffectiveLinks::bandwidthBytesPerS(int a, int b, PathKind path) const
{
    const double nominal = m_topology.bandwidthBytesPerS(a, b, path);
    const Figures &f = figures(kind(a, b, path));
    if (!f.appliesToMeasured && m_topology.measuredPair(a, b))
        return nominal;
    return nominal * f.efficiency;
}

double EffectiveLinks::latencyS(int a, int b, PathKind path) const
{
    const double wire = m_topology.latencyS(a, b, path);
    const Figures &f = figures(kind(a, b, path));
    if (!f.appliesToMeasured && m_topology.measuredPair(a, b))
        return wire;
    return (wire + f.latencyS) * f.latencyFactor;
}

double EffectiveLinks::ringScaleFactor(LinkKind kind, int machines) const
{
    if (machines <= 2)
        return 1;
    return std::pow(1.0 - figures(kind).lossPerDoubling, std::log2(double(machines)) - 1.0);
}

} // namespace hetplan
