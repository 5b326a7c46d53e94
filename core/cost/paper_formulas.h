#pragma once

// The communication shapes the two papers' cost models are written in (α-β model, BSP
// supersteps), shared by hexiscale-paper (HexiScale Appendix A) and hexgen-paper (HexGen
// Appendix B). α in seconds, β in bytes/s, straight from the Topology, over the links `path`
// allows between machines (the group's transport, core/plan/transport.h).

#include "core/model/topology.h"

#include <span>

namespace hetplan {

// max_{x∈d} Σ_{y∈d−x} (α_xy + bytes / (|d|·β_xy)): HexiScale eq. 3 and 4, HexGen eq. 5
// (without their leading factors). 0 for a single GPU.
double paperExchangeS(const Topology &topology, std::span<const int> group, double bytes,
                      PathKind path = PathKind::Widest);

// min_{x∈from, y∈to} (α_xy + bytes/β_xy): the fastest link between two GPU sets
// (HexGen eq. 6).
double paperBestLinkS(const Topology &topology, std::span<const int> from, std::span<const int> to,
                      double bytes, PathKind path = PathKind::Widest);

// min_{x∈from, y∈to} [α_xy + bytes/β_xy + Σ_{z∈to−y} (α_yz + bytes/(|to|·β_yz))]: one
// direction of HexiScale eq. 5, a send to the receiving group's best GPU and its broadcast
// inside that group.
double paperSendAndBroadcastS(const Topology &topology, std::span<const int> from,
                              std::span<const int> to, double bytes,
                              PathKind path = PathKind::Widest);

} // namespace hetplan
