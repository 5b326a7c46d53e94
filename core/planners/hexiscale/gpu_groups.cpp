#include "core/planners/hexiscale/gpu_groups.h"

#include "core/model/topology.h"
#include "core/planners/metis_partition.h"

#include <algorithm>
#include <limits>

namespace hetplan::hexiscale {
namespace {

// Beyond this many GPUs the complete graph (n²/2 edges) costs more than it tells METIS; the
// network part is then sparsified (see below).
constexpr int kDenseGraphLimit = 384;

void addNetworkEdges(const Topology &topology, std::span<const int> gpus,
                     std::vector<GraphEdge> &edges)
{
    const int n = int(gpus.size());
    if (n <= kDenseGraphLimit) {
        for (int i = 0; i < n; ++i)
            for (int j = i + 1; j < n; ++j) {
                const int a = gpus[size_t(i)];
                const int b = gpus[size_t(j)];
                if (topology.gpu(a).machine != topology.gpu(b).machine)
                    edges.push_back({i, j, topology.bandwidthGBps(a, b)});
            }
        return;
    }
    // Sparse: between two machines only the pairs of equal local index (modulo the smaller
    // machine) are joined, each carrying the weight of all pairs it stands for, so the cut
    // between any two whole machines keeps its total weight.
    std::vector<std::vector<int>> byMachine;
    std::vector<int> machineOf;
    for (int i = 0; i < n; ++i) {
        const int machine = topology.gpu(gpus[size_t(i)]).machine;
        const auto it = std::find(machineOf.begin(), machineOf.end(), machine);
        if (it == machineOf.end()) {
            machineOf.push_back(machine);
            byMachine.push_back({i});
        } else {
            byMachine[size_t(it - machineOf.begin())].push_back(i);
        }
    }
    for (size_t ma = 0; ma < byMachine.size(); ++ma)
        for (size_t mb = ma + 1; mb < byMachine.size(); ++mb) {
            const auto &big
                = byMachine[ma].size() >= byMachine[mb].size() ? byMachine[ma] : byMachine[mb];
            const auto &small = &big == &byMachine[ma] ? byMachine[mb] : byMachine[ma];
            const double scale = double(small.size());
            for (size_t k = 0; k < big.size(); ++k) {
                const int a = big[k];
                const int b = small[k % small.size()];
                edges.push_back(
                    {a, b, scale * topology.bandwidthGBps(gpus[size_t(a)], gpus[size_t(b)])});
            }
        }
}

} // namespace

Result<std::vector<std::vector<int>>> splitGpus(const Topology &topology, std::span<const int> gpus,
                                                int parts, CutOption option, int ufactor,
                                                std::uint64_t seed)
{
    WeightedGraph graph;
    graph.vertexWeights.reserve(gpus.size());
    for (int g : gpus)
        graph.vertexWeights.push_back(topology.gpuType(g).tflops);
    const int n = int(gpus.size());
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j)
            if (topology.gpu(gpus[size_t(i)]).machine == topology.gpu(gpus[size_t(j)]).machine)
                graph.edges.push_back(
                    {i, j, topology.bandwidthGBps(gpus[size_t(i)], gpus[size_t(j)])});
    addNetworkEdges(topology, gpus, graph.edges);

    if (option == CutOption::MaximiseBetweenGroups) {
        // METIS only minimises a cut, so the weights are mirrored inside their own range,
        // w' = max + min − w: the slowest link becomes the heaviest edge and is kept inside a
        // group, the fastest links end up cut, between the groups. Unconnected pairs
        // (weight 0) stay without an edge: a pipeline cannot run over them.
        double lowest = std::numeric_limits<double>::infinity();
        double highest = 0;
        for (const GraphEdge &e : graph.edges)
            if (e.weight > 0) {
                lowest = std::min(lowest, e.weight);
                highest = std::max(highest, e.weight);
            }
        for (GraphEdge &e : graph.edges)
            if (e.weight > 0)
                e.weight = highest + lowest - e.weight;
    }

    PartitionOptions options;
    // More than about n/2 parts (but fewer than n) is where METIS's k-way starts failing and
    // printing to stdout (measured: never with 2·parts <= n + 1). There every GPU becomes its
    // own group; the search then idles the weakest groups while that helps.
    options.parts = parts < n && 2 * parts > n + 1 ? n : parts;
    options.ufactor = ufactor;
    options.seed = seed;
    // §4.2 describes recursive bisection; METIS's k-way is used instead because its recursive
    // bisection fails (and prints to stdout) when one GPU outweighs a part's share, which fast
    // GPUs among slow ones do. Both are the same multilevel scheme (coarsen by heavy-edge
    // matching, partition, project back and refine).
    options.method = PartitionMethod::KWay;
    Result<std::vector<int>> part = partitionGraph(graph, options);
    if (!part)
        return part.error();

    std::vector<std::vector<int>> groups(static_cast<size_t>(std::max(options.parts, 1)));
    for (int i = 0; i < n; ++i)
        groups[size_t(part.value()[size_t(i)])].push_back(gpus[size_t(i)]);
    std::erase_if(groups, [](const std::vector<int> &g) { return g.empty(); });
    for (auto &g : groups)
        std::sort(g.begin(), g.end());
    std::sort(groups.begin(), groups.end());
    return groups;
}

namespace {

// Calls slice(begin, end) for each run of `gpus` on one machine.
template<typename Slice>
void forEachMachine(const Topology &topology, std::span<const int> gpus, Slice &&slice)
{
    size_t at = 0;
    while (at < gpus.size()) {
        size_t end = at;
        while (end < gpus.size()
               && topology.gpu(gpus[end]).machine == topology.gpu(gpus[at]).machine)
            ++end;
        slice(at, end);
        at = end;
    }
}

std::vector<std::vector<int>> sortedGroups(std::vector<std::vector<int>> groups)
{
    std::erase_if(groups, [](const std::vector<int> &g) { return g.empty(); });
    for (auto &g : groups)
        std::sort(g.begin(), g.end());
    std::sort(groups.begin(), groups.end());
    return groups;
}

} // namespace

std::vector<std::vector<int>> stripeGpus(const Topology &topology, std::span<const int> gpus,
                                         int parts)
{
    std::vector<std::vector<int>> groups(static_cast<size_t>(std::max(parts, 1)));
    forEachMachine(topology, gpus, [&](size_t at, size_t end) {
        const size_t count = end - at;
        for (size_t i = 0; i < count; ++i)
            groups[i * groups.size() / count].push_back(gpus[at + i]);
    });
    return sortedGroups(std::move(groups));
}

std::vector<std::vector<int>> sliceMachines(const Topology &topology, std::span<const int> gpus,
                                            int parts, int width)
{
    std::vector<std::vector<int>> groups(static_cast<size_t>(std::max(parts, 1)));
    const size_t step = size_t(std::max(width, 1));
    size_t turn = 0;
    forEachMachine(topology, gpus, [&](size_t at, size_t end) {
        for (size_t from = at; from < end; from += step) {
            std::vector<int> &group = groups[turn++ % groups.size()];
            group.insert(group.end(), gpus.begin() + long(from),
                         gpus.begin() + long(std::min(end, from + step)));
        }
    });
    return sortedGroups(std::move(groups));
}

} // namespace hetplan::hexiscale
