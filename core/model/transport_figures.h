#pragma once

#include "core/model/gpu_type.h"

#include <span>
#include <string>

namespace hetplan {

// What the `hetplan` cost model adds to a link's nominal figures for one kind of transport
// (docs/cost-models.md, "Transports and ring scale"). The catalog's defaults cite published
// measurements; a cluster file may override them per kind, as calibration does.
struct TransportFigures
{
    LinkKind kind = LinkKind::Ethernet;
    // Achieved collective bus bandwidth / nominal bandwidth of the link.
    double efficiency = 1;
    // Software latency per ring step or transfer over this transport (NCCL's per-hop figure),
    // added to the link's wire latency.
    double latencyUs = 0;
    // Multiplies the whole latency of a pair of this kind (its link's and the per-hop figure):
    // 1 by default; calibration fits it when measured latencies do not match what runs see.
    double latencyFactor = 1;
    // Fraction of the bus bandwidth lost per doubling of the machines a ring spans beyond two.
    double lossPerDoubling = 0;
    // A host-side ceiling on the rate over this transport (copies, reductions, the socket
    // stack): a transfer achieves 1 / (1 / (efficiency × bandwidth) + 1 / ceiling), so it binds
    // on fast links and hardly on slow ones. 0: none (the default); calibration fits it from
    // runs over links of different bandwidths (docs/cost-models.md, "Transports and ring scale").
    double ceilingGBps = 0;
    std::string source; // where the numbers come from

    bool operator==(const TransportFigures &) const = default;
};

struct Cluster;

// The `hetplan` model's default figures per transport, one per LinkKind, each with the
// published measurement it comes from (docs/cost-models.md, "Transports and ring scale").
std::span<const TransportFigures> defaultTransports();

// The figures a cluster's links of `kind` get: the cluster's own entry (calibrated or written
// by hand) when it has one, else the default. Topology resolves these once per cluster
// (Topology::transport); this is for code that edits a cluster's entries.
const TransportFigures &transportFigures(const Cluster &cluster, LinkKind kind);

} // namespace hetplan
