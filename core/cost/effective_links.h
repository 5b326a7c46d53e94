#pragma once

#include "core/model/topology.h"

#include <array>

namespace hetplan {

// What the `hetplan` model reads between two GPUs: the cluster's figures with its transport's
// efficiency and per-hop latency applied (docs/cost-models.md, "Transports and ring scale").
// The catalog's defaults stand for nominal figures, so they leave measured pairs (pair
// overrides) as measured; a cluster's own entry was fitted against the figures as they are
// and applies to every pair of its kind.
class EffectiveLinks
{
public:
    explicit EffectiveLinks(const Topology &topology);

    const Topology &topology() const { return m_topology; }
    double bandwidthBytesPerS(int a, int b, PathKind path = PathKind::Widest) const;
    double latencyS(int a, int b, PathKind path = PathKind::Widest) const;
    LinkKind kind(int a, int b, PathKind path = PathKind::Widest) const
    {
        return m_topology.pairKind(a, b, path);
    }
    // The share of a ring's bus bandwidth left when it spans `machines` machines over `kind`:
    // (1 − loss)^(log2(machines) − 1) beyond two machines, 1 up to two.
    double ringScaleFactor(LinkKind kind, int machines) const;

private:
    struct Figures
    {
        double efficiency = 1;
        double latencyS = 0;
        double latencyFactor = 1;
        double lossPerDoubling = 0;
        bool appliesToMeasured = false;
    };
    const Figures &figures(LinkKind kind) const { return m_figures[static_cast<size_t>(kind)]; }

    const Topology &m_topology;
    std::array<Figures, 5> m_figures; // indexed by LinkKind
};

} // namespace hetplan
