#pragma once

#include "core/base/result.h"

#include <cstdint>
#include <deque>
#include <span>
#include <utility>
#include <vector>

namespace hetplan {
class Topology;
}

namespace hetplan::hexiscale {

// HexiScale §4.4's two ways to hand out bandwidth in phase 1: minimise the bandwidth between
// the groups (pipelines keep the fast links, data parallelism gets the slow ones), or maximise
// it (data parallelism gets the fast links, pipelines run over the slow ones).
enum class CutOption { MinimiseBetweenGroups, MaximiseBetweenGroups };

// The machine pairs of splitGpus's sparse graphs (large GPU sets), remembered for a few
// machine lists and cut options (the longest kept longest): the search splits the whole cluster
// again every iteration, and choosing the pairs costs machines² lookups. The pairs depend only
// on which machines a set spans, in which order, unless the cluster overrides GPU pairs
// (Topology::hasPairOverrides); so a key names machines, or then each machine's first GPU of
// the set, and the striped pipelines (one GPU of every machine each) share one entry.
// Not thread-safe; one per planning call.
class NeighbourCache
{
public:
    using Pairs = std::vector<std::pair<size_t, size_t>>;
    const Pairs *find(std::span<const int> key, CutOption option) const;
    const Pairs &remember(std::span<const int> key, CutOption option, Pairs pairs);

private:
    struct Entry
    {
        std::vector<int> key;
        CutOption option;
        Pairs pairs;
    };
    std::deque<Entry> m_entries; // oldest first
};

// Splits `gpus` into at most `parts` groups with METIS on the GPU graph (§4.2): vertex weight =
// peak tflops, edge weight = pair bandwidth, `ufactor` the balance constraint in 1/1000.
// Groups come back non-empty, each sorted, ordered by their first GPU.
// Sets beyond a few hundred GPUs are split with whole machines: by METIS on the machine graph
// into few parts, or by pairing machines into at least half as many parts as machines.
// `cache`, when given, saves rebuilding the sparse graph of a GPU set split before.
Result<std::vector<std::vector<int>>> splitGpus(const Topology &topology, std::span<const int> gpus,
                                                int parts, CutOption option, int ufactor,
                                                std::uint64_t seed,
                                                NeighbourCache *cache = nullptr);

// The extreme of MaximiseBetweenGroups on machine-shaped clusters, as a second opinion next to
// METIS: every machine's GPUs cut into `parts` contiguous slices, slice i to group i, so all
// intra-machine links run between the groups. Same output conventions as splitGpus.
std::vector<std::vector<int>> stripeGpus(const Topology &topology, std::span<const int> gpus,
                                         int parts);

// Striping for machines of mixed sizes: every machine's GPUs cut into contiguous slices of
// `width` (a smaller machine is one slice), the slices dealt to the groups in turn, so a slice
// never spans machines and small machines go whole to one group. Same output conventions.
std::vector<std::vector<int>> sliceMachines(const Topology &topology, std::span<const int> gpus,
                                            int parts, int width);

} // namespace hetplan::hexiscale
