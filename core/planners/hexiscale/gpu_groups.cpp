#include "core/planners/hexiscale/gpu_groups.h"

#include "core/model/topology.h"
#include "core/planners/metis_partition.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_map>

namespace hetplan::hexiscale {
namespace {

// Beyond this many GPUs the complete graph (n²/2 edges) costs more than it tells METIS; the
// network part is then sparsified (see addSparseNetworkEdges).
constexpr int kDenseGraphLimit = 384;
// Machines each machine stays joined to in the sparse graph.
constexpr size_t kNeighbourMachines = 16;

// The GPUs of `gpus` (positions into it) machine by machine, machines in order of appearance.
std::vector<std::vector<int>> positionsByMachine(const Topology &topology,
                                                 std::span<const int> gpus)
{
    std::vector<std::vector<int>> byMachine;
    std::unordered_map<int, size_t> slotOf;
    for (int i = 0; i < int(gpus.size()); ++i) {
        const int machine = topology.gpu(gpus[size_t(i)]).machine;
        const auto [it, added] = slotOf.try_emplace(machine, byMachine.size());
        if (added)
            byMachine.emplace_back();
        byMachine[it->second].push_back(i);
    }
    return byMachine;
}

// Between two machines only the pairs of equal local index (modulo the smaller machine) are
// joined, each carrying the weight of all pairs it stands for, so the cut between the two whole
// machines keeps its total weight.
void joinMachines(const Topology &topology, std::span<const int> gpus, const std::vector<int> &x,
                  const std::vector<int> &y, std::vector<GraphEdge> &edges)
{
    const auto &big = x.size() >= y.size() ? x : y;
    const auto &small = &big == &x ? y : x;
    const double scale = double(small.size());
    for (size_t k = 0; k < big.size(); ++k) {
        const int a = big[k];
        const int b = small[k % small.size()];
        edges.push_back({a, b, scale * topology.bandwidthGBps(gpus[size_t(a)], gpus[size_t(b)])});
    }
}

// Each machine joined to the kNeighbourMachines machines it would most like to share a group
// with: the widest (MinimiseBetweenGroups) or the narrowest (Maximise...) connected ones, then
// the lowest latency (the same rack before the same pod), then the nearest in file order. Far
// pairs carry little weight in the complete graph and cut no differently whichever group they
// land in, so leaving them out costs METIS little while the graph stays linear in the GPUs.
// Returns the pairs as machine slots of `byMachine`, each pair once.
std::vector<std::pair<size_t, size_t>>
neighbourPairs(const Topology &topology, std::span<const int> gpus, CutOption option,
               const std::vector<std::vector<int>> &byMachine)
{
    const size_t machines = byMachine.size();
    const size_t keep = std::min(kNeighbourMachines, machines > 0 ? machines - 1 : 0);
    std::vector<std::pair<size_t, size_t>> pairs;
    pairs.reserve(machines * keep);
    struct Neighbour
    {
        double bandwidthGBps;
        double latencyUs;
        size_t distance;
        size_t slot;
    };
    const auto preferred = [option](const Neighbour &x, const Neighbour &y) {
        if (x.bandwidthGBps != y.bandwidthGBps)
            return option == CutOption::MinimiseBetweenGroups ? x.bandwidthGBps > y.bandwidthGBps
                                                              : x.bandwidthGBps < y.bandwidthGBps;
        if (x.latencyUs != y.latencyUs)
            return x.latencyUs < y.latencyUs;
        return x.distance != y.distance ? x.distance < y.distance : x.slot < y.slot;
    };
    std::vector<Neighbour> row;
    for (size_t a = 0; a < machines; ++a) {
        const int gpuA = gpus[size_t(byMachine[a].front())];
        row.clear();
        for (size_t b = 0; b < machines; ++b) {
            const int gpuB = gpus[size_t(byMachine[b].front())];
            if (b == a || !topology.connected(gpuA, gpuB))
                continue;
            row.push_back({topology.bandwidthGBps(gpuA, gpuB), topology.latencyUs(gpuA, gpuB),
                           a > b ? a - b : b - a, b});
        }
        const size_t take = std::min(keep, row.size());
        // `preferred` is a strict total order, so selecting then sorting the few kept equals a
        // partial sort, in linear rather than n·log(take) time over thousands of machines.
        std::nth_element(row.begin(), row.begin() + long(take), row.end(), preferred);
        std::sort(row.begin(), row.begin() + long(take), preferred);
        for (size_t i = 0; i < take; ++i)
            pairs.emplace_back(std::min(a, row[i].slot), std::max(a, row[i].slot));
    }
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    return pairs;
}

std::vector<std::vector<int>> sortedGroups(std::vector<std::vector<int>> groups)
{
    std::erase_if(groups, [](const std::vector<int> &g) { return g.empty(); });
    for (auto &g : groups)
        std::sort(g.begin(), g.end());
    std::sort(groups.begin(), groups.end());
    return groups;
}

// The cache key of a GPU set's machines (see NeighbourCache).
std::vector<int> neighbourKey(const Topology &topology, std::span<const int> gpus,
                              const std::vector<std::vector<int>> &byMachine)
{
    std::vector<int> key;
    key.reserve(byMachine.size());
    for (const std::vector<int> &machine : byMachine) {
        const int first = gpus[size_t(machine.front())];
        key.push_back(topology.hasPairOverrides() ? first : topology.gpu(first).machine);
    }
    return key;
}

const NeighbourCache::Pairs &cachedPairs(const Topology &topology, std::span<const int> gpus,
                                         CutOption option,
                                         const std::vector<std::vector<int>> &byMachine,
                                         NeighbourCache *cache, NeighbourCache::Pairs &scratch)
{
    if (cache) {
        const std::vector<int> key = neighbourKey(topology, gpus, byMachine);
        if (const NeighbourCache::Pairs *known = cache->find(key, option))
            return *known;
        return cache->remember(key, option, neighbourPairs(topology, gpus, option, byMachine));
    }
    scratch = neighbourPairs(topology, gpus, option, byMachine);
    return scratch;
}

void addNetworkEdges(const Topology &topology, std::span<const int> gpus, CutOption option,
                     const std::vector<std::vector<int>> &byMachine, NeighbourCache *cache,
                     std::vector<GraphEdge> &edges)
{
    const int n = int(gpus.size());
    if (n > kDenseGraphLimit) {
        NeighbourCache::Pairs scratch;
        for (const auto &[a, b] : cachedPairs(topology, gpus, option, byMachine, cache, scratch))
            joinMachines(topology, gpus, byMachine[a], byMachine[b], edges);
        return;
    }
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
            const int a = gpus[size_t(i)];
            const int b = gpus[size_t(j)];
            if (topology.gpu(a).machine != topology.gpu(b).machine)
                edges.push_back({i, j, topology.bandwidthGBps(a, b)});
        }
}

// Turns the edge weights into how much each pair should share a group, which a min cut keeps
// inside: the bandwidth itself for MinimiseBetweenGroups. For MaximiseBetweenGroups they are
// mirrored inside their own range, w' = max + min − w: the slowest link becomes the heaviest
// edge and is kept inside a group, the fastest links end up cut, between the groups.
// Unconnected pairs (weight 0) stay without an edge: a pipeline cannot run over them.
void keepInsideGroups(WeightedGraph &graph, CutOption option)
{
    if (option != CutOption::MaximiseBetweenGroups)
        return;
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

// METIS on the graph for the cut option (§4.4).
Result<std::vector<int>> partition(WeightedGraph graph, int parts, CutOption option, int ufactor,
                                   std::uint64_t seed)
{
    keepInsideGroups(graph, option);
    PartitionOptions options;
    options.parts = parts;
    options.ufactor = ufactor;
    options.seed = seed;
    // §4.2 describes recursive bisection; METIS's k-way is used instead because its recursive
    // bisection fails (and prints to stdout) when one GPU outweighs a part's share, which fast
    // GPUs among slow ones do. Both are the same multilevel scheme (coarsen by heavy-edge
    // matching, partition, project back and refine).
    options.method = PartitionMethod::KWay;
    return partitionGraph(graph, options);
}

// One vertex per machine of `gpus` (its GPUs' compute), one edge per neighbour pair carrying
// the bandwidth of all its GPU pairs.
WeightedGraph machineGraph(const Topology &topology, std::span<const int> gpus,
                           const std::vector<std::vector<int>> &byMachine, CutOption option,
                           NeighbourCache *cache)
{
    WeightedGraph graph;
    for (const std::vector<int> &machine : byMachine) {
        double tflops = 0;
        for (int i : machine)
            tflops += topology.gpuType(gpus[size_t(i)]).tflops;
        graph.vertexWeights.push_back(tflops);
    }
    NeighbourCache::Pairs scratch;
    for (const auto &[a, b] : cachedPairs(topology, gpus, option, byMachine, cache, scratch)) {
        const double pairs = double(byMachine[a].size() * byMachine[b].size());
        const double bandwidthGBps = topology.bandwidthGBps(gpus[size_t(byMachine[a].front())],
                                                            gpus[size_t(byMachine[b].front())]);
        graph.edges.push_back({int(a), int(b), pairs * bandwidthGBps});
    }
    return graph;
}

// The GPUs of each machine group (machine slots of `byMachine`), in groups.
std::vector<std::vector<int>> gpusOfMachineGroups(std::span<const int> gpus,
                                                  const std::vector<std::vector<int>> &byMachine,
                                                  const std::vector<int> &groupOfMachine, int parts)
{
    std::vector<std::vector<int>> groups(static_cast<size_t>(parts));
    for (size_t m = 0; m < byMachine.size(); ++m)
        for (int i : byMachine[m])
            groups[size_t(groupOfMachine[m])].push_back(gpus[size_t(i)]);
    return sortedGroups(std::move(groups));
}

// Large groups split into few parts are partitioned machine by machine (machineGraph). A
// machine's GPUs then stay in one group, which a min-cut split keeps them in anyway (the
// intra-machine links are the widest), and METIS sees 8× fewer vertices. Splits that cut
// through machines come from stripeGpus and sliceMachines.
Result<std::vector<std::vector<int>>> splitMachines(const Topology &topology,
                                                    std::span<const int> gpus,
                                                    const std::vector<std::vector<int>> &byMachine,
                                                    int parts, CutOption option, int ufactor,
                                                    std::uint64_t seed, NeighbourCache *cache)
{
    Result<std::vector<int>> part = partition(
        machineGraph(topology, gpus, byMachine, option, cache), parts, option, ufactor, seed);
    if (!part)
        return part.error();
    return gpusOfMachineGroups(gpus, byMachine, part.value(), parts);
}

// Large groups split into at least half as many parts as they span machines, as the pipeline
// builder asks for (§4.3 step (i), k_i near the machine count), keeping machines whole: every
// part is one machine or two, so the split is a matching of machines, which METIS's k-way
// cannot find (it fails beyond about vertices/2 parts) and which costs it a full multilevel
// run over every GPU. Pairs are joined greedily along the edges a min cut keeps inside
// (heaviest first, the file order among equals; heavy-edge matching, as METIS coarsens), within
// the balance constraint, until `parts` groups remain. Empty when no such matching is found
// (a machine outweighs a part's allowance, or too few pairs fit in it); METIS then splits the
// GPUs.
std::optional<std::vector<std::vector<int>>>
pairMachines(const Topology &topology, std::span<const int> gpus,
             const std::vector<std::vector<int>> &byMachine, int parts, CutOption option,
             int ufactor, NeighbourCache *cache)
{
    const int machines = int(byMachine.size());
    WeightedGraph graph = machineGraph(topology, gpus, byMachine, option, cache);
    keepInsideGroups(graph, option);
    double totalTflops = 0;
    for (double w : graph.vertexWeights)
        totalTflops += w;
    const double allowance = (1 + std::max(1, ufactor) / 1000.0) * totalTflops / parts;
    for (double w : graph.vertexWeights)
        if (w > allowance)
            return std::nullopt;
    std::stable_sort(graph.edges.begin(), graph.edges.end(),
                     [](const GraphEdge &x, const GraphEdge &y) { return x.weight > y.weight; });
    std::vector<int> groupOf(static_cast<size_t>(machines), -1);
    int joined = 0;
    for (const GraphEdge &e : graph.edges) {
        if (joined == machines - parts)
            break;
        if (e.weight <= 0 || groupOf[size_t(e.a)] >= 0 || groupOf[size_t(e.b)] >= 0
            || graph.vertexWeights[size_t(e.a)] + graph.vertexWeights[size_t(e.b)] > allowance)
            continue;
        groupOf[size_t(e.a)] = groupOf[size_t(e.b)] = joined++;
    }
    if (joined < machines - parts)
        return std::nullopt;
    int next = joined;
    for (int &group : groupOf)
        if (group < 0)
            group = next++;
    return gpusOfMachineGroups(gpus, byMachine, groupOf, parts);
}

} // namespace

const NeighbourCache::Pairs *NeighbourCache::find(std::span<const int> key, CutOption option) const
{
    for (const Entry &entry : m_entries)
        if (entry.option == option
            && std::equal(key.begin(), key.end(), entry.key.begin(), entry.key.end()))
            return &entry.pairs;
    return nullptr;
}

const NeighbourCache::Pairs &NeighbourCache::remember(std::span<const int> key, CutOption option,
                                                      Pairs pairs)
{
    constexpr size_t kEntries = 4; // the whole cluster under both options, and a few groups
    // The shortest key makes room (the oldest among equals): the whole cluster, split again
    // every iteration and the dearest to recompute (machines² lookups), outlives the dozens of
    // pipeline groups remembered in between.
    if (m_entries.size() == kEntries)
        m_entries.erase(std::min_element(
            m_entries.begin(), m_entries.end(),
            [](const Entry &x, const Entry &y) { return x.key.size() < y.key.size(); }));
    m_entries.push_back({{key.begin(), key.end()}, option, std::move(pairs)});
    return m_entries.back().pairs;
}

Result<std::vector<std::vector<int>>> splitGpus(const Topology &topology, std::span<const int> gpus,
                                                int parts, CutOption option, int ufactor,
                                                std::uint64_t seed, NeighbourCache *cache)
{
    const int n = int(gpus.size());
    // More than about n/2 parts (but fewer than n) is where METIS's k-way starts failing and
    // printing to stdout (measured: never with 2·parts <= n + 1). There every GPU becomes its
    // own group; the search then idles the weakest groups while that helps.
    const int partCount = std::max(1, parts < n && 2 * parts > n + 1 ? n : parts);
    // One group, or one per GPU, needs no graph (the larger the cluster, the more that saves).
    if (partCount == 1 || partCount >= n) {
        std::vector<std::vector<int>> groups(size_t(partCount == 1 ? 1 : n));
        for (int i = 0; i < n; ++i)
            groups[partCount == 1 ? 0 : size_t(i)].push_back(gpus[size_t(i)]);
        return sortedGroups(std::move(groups));
    }

    const std::vector<std::vector<int>> byMachine = positionsByMachine(topology, gpus);
    const int machines = int(byMachine.size());
    if (n > kDenseGraphLimit && 2 * partCount <= machines + 1)
        return splitMachines(topology, gpus, byMachine, partCount, option, ufactor, seed, cache);
    if (n > kDenseGraphLimit && partCount <= machines)
        if (auto paired
            = pairMachines(topology, gpus, byMachine, partCount, option, ufactor, cache))
            return std::move(*paired);

    WeightedGraph graph;
    graph.vertexWeights.reserve(gpus.size());
    for (int g : gpus)
        graph.vertexWeights.push_back(topology.gpuType(g).tflops);
    for (const std::vector<int> &machine : byMachine)
        for (size_t i = 0; i < machine.size(); ++i)
            for (size_t j = i + 1; j < machine.size(); ++j)
                graph.edges.push_back(
                    {machine[i], machine[j],
                     topology.bandwidthGBps(gpus[size_t(machine[i])], gpus[size_t(machine[j])])});
    addNetworkEdges(topology, gpus, option, byMachine, cache, graph.edges);

    Result<std::vector<int>> part = partition(std::move(graph), partCount, option, ufactor, seed);
    if (!part)
        return part.error();

    std::vector<std::vector<int>> groups(static_cast<size_t>(partCount));
    for (int i = 0; i < n; ++i)
        groups[size_t(part.value()[size_t(i)])].push_back(gpus[size_t(i)]);
    return sortedGroups(std::move(groups));
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
