#pragma once

#include "core/base/result.h"

#include <cstdint>
#include <vector>

namespace hetplan {

// An undirected weighted graph as planners build it: one vertex per GPU (weight = compute),
// one edge per connected GPU pair (weight = bandwidth). Weights are real numbers; the wrapper
// scales them to METIS's integers.
struct GraphEdge
{
    int a = 0;
    int b = 0;
    double weight = 0; // > 0; edges of weight <= 0 are left out
};

struct WeightedGraph
{
    std::vector<double> vertexWeights; // one per vertex, >= 0
    std::vector<GraphEdge> edges;      // each pair at most once; a != b
};

// METIS 5's two multilevel partitioners (Karypis & Kumar 1998): k-way refinement, or
// recursive bisection (the method HexiScale §4.2 step (ii) describes).
enum class PartitionMethod { KWay, RecursiveBisection };

struct PartitionOptions
{
    int parts = 2;
    PartitionMethod method = PartitionMethod::RecursiveBisection;
    // Allowed load imbalance in 1/1000 (METIS_OPTION_UFACTOR): a part may weigh up to
    // (1 + ufactor/1000) × the average. HexiScale's balance factor (§4.2) minus one.
    int ufactor = 30;
    std::uint64_t seed = 1;
};

// Part index (0 … parts-1) of every vertex, minimising the total weight of cut edges under the
// balance constraint. Parts may come back empty on tiny or disconnected graphs. One part, or
// at least as many parts as vertices, is answered without calling METIS (vertex i → part i).
// METIS failures come back as ErrorKind::Internal. Beware: METIS itself prints to stdout and
// may fail when parts come close to the vertex count (k-way: measured clean for
// 2·parts <= vertices + 1) or, with recursive bisection, when one vertex outweighs a part's
// share; callers stay within those limits.
Result<std::vector<int>> partitionGraph(const WeightedGraph &graph,
                                        const PartitionOptions &options);

} // namespace hetplan
