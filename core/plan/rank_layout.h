#pragma once

#include "core/plan/plan.h"

#include <string>
#include <vector>

namespace hetplan {

class Topology;

// Where one rank of a plan runs and what it holds. Ranks are numbered as `hetplan-cli run`
// and hetplan-worker number them (docs/runtime-program.md): by pipeline, then stage, then DP
// replica inside the stage, then TP index, so a TP group is consecutive and its leader first.
struct RankPlacement
{
    int rank = 0;
    int machine = 0;         // index into Cluster::machines
    std::string machineName; // the machine's name in the cluster file
    std::string host;        // where the rank is started; ranks with one host share a node
    int gpu = 0;             // flat Topology index
    std::string gpuName;     // "A:3"
    int gpuIndex = 0;        // the GPU's index inside its machine: 3 for "A:3"
    int localRank = 0;       // index among the ranks on the same host, in rank order
    int pipeline = 0;
    int stage = 0;
    int replica = 0; // DP replica inside the stage, 0 when dp = 1
    int tpRank = 0;
    int tpSize = 1;
    int layerBegin = 0; // half-open [layerBegin, layerEnd) of transformer layers
    int layerEnd = 0;

    bool operator==(const RankPlacement &) const = default;
};

// The plan's ranks in rank order. `hostOfMachine[m]` is where machine m's ranks start (a
// hosts file's host); a missing or empty one falls back to the machine's own `host` and then
// to its name, so that machines without a host never share a node by accident.
std::vector<RankPlacement> rankLayout(const Plan &plan, const Topology &topology,
                                      const std::vector<std::string> &hostOfMachine = {});

// One launch node: a host and its ranks in local-rank order.
struct NodeRanks
{
    std::string host;
    std::vector<int> ranks;
    std::vector<int> gpuIndices; // per local rank, the GPU's index inside its machine
    // False when several machines share the host: their GPU indices then do not name the
    // host's devices.
    bool singleMachine = true;
};

// The hosts of a layout in order of their first rank (so the node of rank 0 comes first).
std::vector<NodeRanks> nodesOf(const std::vector<RankPlacement> &layout);

} // namespace hetplan
