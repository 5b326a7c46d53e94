#include "core/planners/hexiscale/pipeline_builder.h"

#include "core/base/infinity.h"
#include "core/planners/hexiscale/gpu_groups.h"
#include "core/planners/hexiscale/layer_assignment.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <tuple>

namespace hetplan::hexiscale {
namespace {

// Orders of the parts that get a full layer assignment (each in both directions).
constexpr int kOrdersTried = 4;
// Paths the top-τ search may collect before ranking them.
constexpr int kPathBudget = 64;

double sumTflops(const SearchContext &context, std::span<const int> gpus)
{
    double sum = 0;
    for (int g : gpus)
        sum += context.tflops(g);
    return sum;
}

// A machine's GPUs of one part cut into TP groups of `tp` (the rest in the widest allowed
// smaller groups).
std::vector<StageShape> cutIntoStages(SearchContext &context, const std::vector<int> &gpus, int tp)
{
    std::vector<StageShape> stages;
    size_t at = 0;
    int width = tp;
    while (at < gpus.size()) {
        width = std::min<int>(width, int(gpus.size() - at));
        for (; width > 1; --width) {
            StageShape probe
                = context.makeStage({gpus.begin() + long(at), gpus.begin() + long(at) + width});
            if (context.tpAllowed(probe))
                break;
        }
        stages.push_back(
            context.makeStage({gpus.begin() + long(at), gpus.begin() + long(at) + width}));
        at += size_t(width);
    }
    return stages;
}

// The cost-model rating of one way to cut a machine's GPUs: the chunk receives `layerShare`
// layers, split over its stages by their speed, and pipelines `microBatches` micro-batches
// through them: (m − 1 + q) · (per-stage time + intra-machine hop), eq. 9 for q equal stages.
// Layouts whose stages cannot hold their layers rate after every layout that can.
std::pair<bool, double> rateChunk(SearchContext &context, const std::vector<StageShape> &stages,
                                  double layerShare, const PipelineBuildOptions &options)
{
    const int q = int(stages.size());
    double rate = 0;
    std::vector<double> perLayer;
    for (const StageShape &s : stages) {
        const double t
            = context.stageCost(s, 1, 1, 3, options.microBatch, options.microBatches).timeS;
        perLayer.push_back(t);
        rate += t > 0 ? 1.0 / t : 0.0;
    }
    if (rate <= 0)
        return {false, kInfinity};
    bool fits = true;
    for (int i = 0; i < q; ++i) {
        const int layers = std::max(1, int(std::ceil(layerShare / (perLayer[size_t(i)] * rate))));
        if (!context
                 .stageCost(stages[size_t(i)], std::min(layers, context.layerCount()), 1, 3,
                            options.microBatch, options.microBatches)
                 .fits)
            fits = false;
    }
    const double hop = q > 1 ? context.hopS(stages[0], stages[1], options.microBatch) : 0.0;
    const double stageS = layerShare / rate + hop;
    return {fits, (options.microBatches - 1 + q) * stageS};
}

std::vector<StageShape> stagesOfChunk(SearchContext &context, const std::vector<int> &gpus,
                                      double layerShare, const PipelineBuildOptions &options)
{
    if (options.policy == TpPolicy::Narrowest)
        return cutIntoStages(context, gpus, 1);
    if (options.policy == TpPolicy::Widest)
        return cutIntoStages(context, gpus, int(gpus.size()));
    std::vector<StageShape> best;
    std::pair<bool, double> bestRating{false, kInfinity};
    for (int tp = 1; tp <= int(gpus.size()); ++tp) {
        StageShape probe = context.makeStage({gpus.begin(), gpus.begin() + tp});
        if (tp > 1 && !context.tpAllowed(probe))
            continue;
        std::vector<StageShape> stages = cutIntoStages(context, gpus, tp);
        const auto rating = rateChunk(context, stages, layerShare, options);
        const bool better
            = rating.first != bestRating.first ? rating.first : rating.second < bestRating.second;
        if (best.empty() || better) {
            best = std::move(stages);
            bestRating = rating;
        }
    }
    return best;
}

// Best bandwidth between any GPU of one part and any of another (the hop takes the best pair).
double partBandwidth(const Topology &topology, const std::vector<int> &a, const std::vector<int> &b)
{
    double best = 0;
    for (int x : a)
        for (int y : b)
            best = std::max(best, topology.bandwidthGBps(x, y));
    return best;
}

// §4.3 step (iii): from every part as the start, follow the τ best-connected unvisited parts
// recursively until the path holds every part. Paths are ranked by Σ 1/bandwidth of their
// joints (the hop time of eq. 5 for a fixed message).
std::vector<std::vector<int>> orderCandidates(const std::vector<std::vector<double>> &bandwidth,
                                              int tau)
{
    const int k = int(bandwidth.size());
    std::vector<std::pair<double, std::vector<int>>> found;
    const int budgetPerStart = std::max(1, kPathBudget / std::max(k, 1));
    std::vector<int> path;
    std::vector<char> used(static_cast<size_t>(k), 0);
    int budget = 0;
    const auto explore = [&](auto &&self, double costSoFar) -> void {
        if (budget <= 0)
            return;
        if (int(path.size()) == k) {
            found.emplace_back(costSoFar, path);
            --budget;
            return;
        }
        // The τ unvisited parts best connected to the last one, the lower index first among
        // equals: one pass keeping a sorted top τ (τ is small; the parts can be a hundred).
        const std::vector<double> &from = bandwidth[size_t(path.back())];
        const size_t width = size_t(std::max(tau, 1));
        std::vector<int> next;
        next.reserve(width + 1);
        for (int v = 0; v < k; ++v) {
            if (used[size_t(v)])
                continue;
            if (next.size() == width && !(from[size_t(v)] > from[size_t(next.back())]))
                continue;
            auto at = next.end();
            while (at != next.begin() && from[size_t(v)] > from[size_t(*(at - 1))])
                --at;
            next.insert(at, v);
            if (next.size() > width)
                next.pop_back();
        }
        for (int v : next) {
            const double bw = from[size_t(v)];
            path.push_back(v);
            used[size_t(v)] = 1;
            self(self, costSoFar + (bw > 0 ? 1.0 / bw : kInfinity));
            used[size_t(v)] = 0;
            path.pop_back();
        }
    };
    for (int start = 0; start < k; ++start) {
        budget = budgetPerStart;
        path = {start};
        used.assign(size_t(k), 0);
        used[size_t(start)] = 1;
        explore(explore, 0.0);
    }
    std::stable_sort(found.begin(), found.end(),
                     [](const auto &x, const auto &y) { return x.first < y.first; });
    std::vector<std::vector<int>> orders;
    for (auto &f : found) {
        if (f.first == kInfinity)
            break;
        if (std::find(orders.begin(), orders.end(), f.second) != orders.end())
            continue;
        orders.push_back(std::move(f.second));
        if (int(orders.size()) == kOrdersTried)
            break;
    }
    return orders;
}

} // namespace

std::optional<PipelineDraft> buildPipeline(SearchContext &context, std::span<const int> gpus,
                                           const PipelineBuildOptions &options)
{
    const int parts = std::clamp(options.parts, 1, int(gpus.size()));
    Result<std::vector<std::vector<int>>> split = context.split(
        gpus, parts, CutOption::MinimiseBetweenGroups, options.ufactor, options.seed);
    if (!split)
        return std::nullopt;
    return buildPipelineFromParts(context, split.value(), options);
}

std::optional<PipelineDraft> buildPipelineFromParts(SearchContext &context,
                                                    const std::vector<std::vector<int>> &groups,
                                                    const PipelineBuildOptions &options)
{
    const Topology &topology = context.problem().topology;

    // Step (ii): each part's GPUs, machine by machine, into locally best stages.
    double totalTflops = 0;
    for (const std::vector<int> &group : groups)
        totalTflops += sumTflops(context, group);
    std::vector<std::vector<StageShape>> partStages;
    for (const std::vector<int> &group : groups) {
        std::map<int, std::vector<int>> byMachine;
        for (int g : group)
            byMachine[topology.gpu(g).machine].push_back(g);
        // Each machine's stages of a part stay together; the order search below places these
        // blocks (the paper's "intra-group strategies", one per machine, Figure 3).
        for (const auto &[machine, chunk] : byMachine) {
            const double share = context.layerCount() * sumTflops(context, chunk) / totalTflops;
            partStages.push_back(stagesOfChunk(context, chunk, share, options));
        }
    }
    if (context.shouldStop())
        return std::nullopt;

    // More stages than layers: the slowest stages stay idle, the first in part order among
    // equals. One sort, as the largest clusters have thousands of stages to drop.
    std::vector<std::tuple<double, size_t, size_t>> byTflops; // tflops, part, stage
    for (size_t p = 0; p < partStages.size(); ++p)
        for (size_t s = 0; s < partStages[p].size(); ++s)
            byTflops.emplace_back(sumTflops(context, partStages[p][s].gpus), p, s);
    if (byTflops.size() > size_t(context.layerCount())) {
        const auto idle = byTflops.begin() + long(byTflops.size()) - context.layerCount();
        std::partial_sort(byTflops.begin(), idle, byTflops.end());
        std::vector<std::vector<char>> dropped(partStages.size());
        for (size_t p = 0; p < partStages.size(); ++p)
            dropped[p].assign(partStages[p].size(), 0);
        for (auto it = byTflops.begin(); it != idle; ++it)
            dropped[std::get<1>(*it)][std::get<2>(*it)] = 1;
        for (size_t p = 0; p < partStages.size(); ++p) {
            size_t s = 0;
            std::erase_if(partStages[p], [&](const StageShape &) { return dropped[p][s++] != 0; });
        }
    }
    std::erase_if(partStages, [](const auto &stages) { return stages.empty(); });

    // Step (iii): order the parts; layers decide between the best few orders.
    const int k = int(partStages.size());
    std::vector<std::vector<int>> partGpus(static_cast<size_t>(k));
    for (int p = 0; p < k; ++p)
        for (const StageShape &s : partStages[size_t(p)])
            partGpus[size_t(p)].insert(partGpus[size_t(p)].end(), s.gpus.begin(), s.gpus.end());
    std::vector<std::vector<double>> bandwidth(size_t(k), std::vector<double>(size_t(k), 0.0));
    for (int a = 0; a < k; ++a)
        for (int b = a + 1; b < k; ++b)
            bandwidth[size_t(a)][size_t(b)] = bandwidth[size_t(b)][size_t(a)]
                = partBandwidth(topology, partGpus[size_t(a)], partGpus[size_t(b)]);
    std::vector<std::vector<int>> orders
        = k == 1 ? std::vector<std::vector<int>>{{0}} : orderCandidates(bandwidth, options.tau);

    std::optional<PipelineDraft> best;
    double bestS = kInfinity;
    for (const std::vector<int> &order : orders) {
        for (int direction = 0; direction < (k == 1 ? 1 : 2); ++direction) {
            if (context.shouldStop())
                return best;
            PipelineDraft draft;
            for (int i = 0; i < k; ++i) {
                const int p = order[size_t(direction == 0 ? i : k - 1 - i)];
                for (const StageShape &s : partStages[size_t(p)])
                    draft.stages.push_back(s);
            }
            if (!optimiseLayers(context, draft, options.microBatch, options.microBatches))
                continue;
            const double timeS
                = context.pipelineCost(draft, options.microBatch, options.microBatches)
                      .timeS(options.microBatches);
            if (timeS < bestS) {
                bestS = timeS;
                best = std::move(draft);
            }
        }
    }
    return best;
}

} // namespace hetplan::hexiscale
