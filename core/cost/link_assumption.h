#pragma once

// What the `hetplan` cost model assumes for one communication group, for code outside the cost
// model that measures the same group (the launcher's pre-flight, docs/launcher.md "Pre-flight"):
// the figures come from the helpers the model's terms use (hetplan_comm.h), so a measurement
// compares with what the model charges.

#include "core/cost/problem.h"
#include "core/model/topology.h"

#include <span>

namespace hetplan {

struct LinkAssumption
{
    double bytesPerS = 0; // a transfer's bandwidth, or an all-reduce's bus bandwidth
    double latencyS = 0;
};

// One direction of a pipeline hop between two GPUs: their effective pair bandwidth and latency.
LinkAssumption assumedTransfer(const Topology &topology, int from, int to, PathKind path);

// A ring all-reduce over `gpus`: the slowest pair's effective bandwidth as the bus bandwidth
// (ringAllReduceS), for a gradient ring (`gradient`) times the ring's scale across machines as
// asymmetricGradientSyncS applies it; the latency of a one-element all-reduce, 2(n−1) times
// the worst pair's.
LinkAssumption assumedAllReduce(const Topology &topology, std::span<const int> gpus, PathKind path,
                                bool gradient);

// What the model's messages weigh (docs/cost-models.md, "Bytes on the wire"): one element, and
// one sequence's activations (sequence length × hidden elements).
struct MessageWeights
{
    double elementBytes = 0;
    double sequenceBytes = 0;
};
MessageWeights messageWeights(const Problem &problem);

} // namespace hetplan
