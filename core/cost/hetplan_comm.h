#pragma once

// Collective and point-to-point times of the `hetplan` model, in the conventions of
// nccl-tests (doc/PERFORMANCE.md): a ring all-reduce moves 2(n−1)/n of the buffer over the
// bus bandwidth of its slowest link, a broadcast moves the buffer once. Links are read as the
// Topology's effective figures: their transport's efficiency and per-hop latency applied.

#include "core/model/topology.h"
#include "core/model/workload.h"

#include <span>

namespace hetplan {

struct Plan;
struct Problem;
struct LayerSegments;
class PlanPaths;
struct StageQuery;

// Bytes on the wire of the `hetplan` training terms (docs/cost-models.md, "Bytes on the wire"):
// every tensor they move travels in the workload's precision, as the runtime sends it
// (wirePrecision, core/model/backend_kind.h). The runtime's volume per group is held to these.
struct WireBytes
{
    double element = 0;     // one element: bytesPerElement(train.precision)
    double perSequence = 0; // one sequence's activations (s·h elements): a TP all-reduce's
                            // share, or what a hop moves each way
};
WireBytes wireBytes(const Problem &problem);

// TP all-reduces per layer and micro-batch (Megatron-LM, Shoeybi et al., 2019, §3): two of the
// b·s·h activations in the forward, two in the backward, two more when full recomputation
// reruns the forward.
int tpAllReducesPerLayer(Recompute recompute, bool backward);

// The slowest link and the worst latency among every pair of a group.
struct GroupLinks
{
    double slowestBytesPerS = 0;
    double worstLatencyS = 0;
};
GroupLinks groupLinks(const Topology &topology, std::span<const int> group,
                      PathKind path = PathKind::Widest);

// Ring all-reduce: 2(n−1)/n · bytes / busBW + 2(n−1)·α (reduce-scatter then all-gather, n−1
// steps each). 0 for one GPU.
double ringAllReduceS(int n, double bytes, const GroupLinks &links);
// Pipelined ring broadcast: bytes / busBW + (n−1)·α. 0 for one GPU.
double ringBroadcastS(int n, double bytes, const GroupLinks &links);

// One direction of a pipeline hop (HexiScale §3.2): the best GPU of `from` sends to the best
// GPU of `to`, which broadcasts inside `to` (its TP group).
double sendAndBroadcastS(const Topology &topology, std::span<const int> from,
                         std::span<const int> to, double bytes, PathKind path = PathKind::Widest);

// Network contention of a hop into (or back into) a dp > 1 stage: its replicas receive their
// shares at the same time, so the replicas on one machine share that machine's network link,
// and a single sending machine's link carries every share that leaves it. The result is the
// busiest machine link's time (its bytes over its bandwidth, plus latency); 0 when every
// share stays inside the sender's machine. `receiver` replicas get `bytesPerSequence` times
// their dp_split share.
double sharedNetworkLinkS(const Topology &topology, const StageQuery &sender,
                          const StageQuery &receiver, double bytesPerSequence, PathKind path);

// HexiScale §3.2 asymmetric gradient synchronisation over a whole plan. Fills the per-stage
// figure (flat, pipeline by pipeline) and returns the iteration's DP time. Each all-reduce
// travels over the links its holders' transport allows (PlanPaths); a ring across more than
// two machines loses its transport's share of bus bandwidth per doubling.
double asymmetricGradientSyncS(const Problem &problem, const Plan &plan, const PlanPaths &paths,
                               const LayerSegments &segments, std::span<double> perStageS);

} // namespace hetplan
