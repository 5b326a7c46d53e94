#pragma once

// Bandwidth edits of a cluster as drawn: the what-if sliders, the app's bandwidth sweep and
// `hetplan-cli sweep` all change link bandwidths through these, so "every link between
// machines" means the same everywhere.

#include "core/base/result.h"
#include "core/model/cluster.h"
#include "core/model/topology.h"

#include <span>
#include <string_view>
#include <vector>

namespace hetplan {

// Which bandwidths an edit changes: every network link (the links between machines and
// switches), every machine's intra-machine link, one network link (index into
// Cluster::links) or the intra-machine link of one machine (index into Cluster::machines).
struct BandwidthTarget
{
    enum class Kind { Network, Intra, Link, MachineIntra } kind = Kind::Network;
    int index = -1; // for Link and MachineIntra

    bool operator==(const BandwidthTarget &) const = default;
};

// Every target a cluster offers: the two classes first, then each link, then the intra link
// of each machine with more than one GPU (with one, nothing crosses it).
std::vector<BandwidthTarget> bandwidthTargets(const Cluster &cluster);
// Every link between the nodes named `a` and `b`, either way round; empty when none.
std::vector<BandwidthTarget> linksBetween(const Cluster &cluster, std::string_view a,
                                          std::string_view b);

// The bandwidth a target has as drawn; for a class, its widest member (0 when it has none).
double drawnBandwidthGBps(const Cluster &cluster, const BandwidthTarget &target);
// Sets every bandwidth the target covers to `bandwidthGBps`.
Cluster withBandwidth(Cluster cluster, const BandwidthTarget &target, double bandwidthGBps);
// Multiplies every bandwidth each target covers by its factor (factors[i] belongs to
// targets[i]); a link in a class and also a target of its own is multiplied by both.
Cluster scaledCluster(Cluster cluster, std::span<const BandwidthTarget> targets,
                      std::span<const double> factors);
// The same scaling of the topology's cluster, built over the GPU types the topology resolved:
// what a what-if slider evaluates (docs/architecture.md, "Following a what-if bandwidth").
// Fails as Topology::build does (a bandwidth scaled to a value it refuses).
Result<Topology> scaledTopology(const Topology &topology, std::span<const BandwidthTarget> targets,
                                std::span<const double> factors);

} // namespace hetplan
