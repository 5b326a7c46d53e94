#include "core/calibrate/calibration_design.h"

#include "core/model/topology.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace hetplan {
namespace {

Stage stageOf(std::vector<int> gpus, int layerBegin, int layerEnd)
{
    Stage stage;
    stage.gpus = std::move(gpus);
    stage.layerBegin = layerBegin;
    stage.layerEnd = layerEnd;
    return stage;
}

// A plan of the design: the workload as given, at one micro-batch size.
Plan planOf(const ModelSpec &model, const Workload &workload, int microBatch,
            std::vector<Pipeline> pipelines)
{
    Plan plan;
    plan.planner = "calibration-design";
    plan.model = model.name;
    plan.workload = workload;
    plan.workload.train.microBatchSizes = {microBatch};
    plan.pipelines = std::move(pipelines);
    return plan;
}

// A file-name-safe form of a GPU type's name ("CPU AMD EPYC" -> "CPU-AMD-EPYC").
std::string stemOf(const std::string &name)
{
    std::string stem;
    for (char ch : name)
        stem += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '.') ? ch : '-';
    return stem;
}

struct LinkPair
{
    int a = 0;
    int b = 0;
    double bandwidthBytesPerS = 0;
};

// Per link kind, one pair of GPUs per distinct link: the first two GPUs of each machine that
// has two (its intra link), and the first GPU of every two machines.
std::map<LinkKind, std::vector<LinkPair>> pairsByKind(const Topology &topology)
{
    std::map<LinkKind, std::vector<LinkPair>> pairs;
    const auto add = [&](int a, int b) {
        if (!topology.connected(a, b))
            return;
        pairs[topology.pairKind(a, b)].push_back(
            {a, b, topology.effectiveBandwidthBytesPerS(a, b)});
    };
    const int machines = static_cast<int>(topology.cluster().machines.size());
    for (int m = 0; m < machines; ++m)
        if (topology.cluster().machines[static_cast<size_t>(m)].count >= 2)
            add(topology.firstGpuOf(m), topology.firstGpuOf(m) + 1);
    for (int ma = 0; ma < machines; ++ma)
        for (int mb = ma + 1; mb < machines; ++mb)
            if (topology.cluster().machines[static_cast<size_t>(ma)].count > 0
                && topology.cluster().machines[static_cast<size_t>(mb)].count > 0)
                add(topology.firstGpuOf(ma), topology.firstGpuOf(mb));
    return pairs;
}

// The fastest and the slowest pair of a kind; one when their bandwidths are alike.
std::vector<LinkPair> extremes(const std::vector<LinkPair> &pairs)
{
    const auto byBandwidth = [](const LinkPair &x, const LinkPair &y) {
        return x.bandwidthBytesPerS < y.bandwidthBytesPerS;
    };
    const LinkPair slowest = *std::min_element(pairs.begin(), pairs.end(), byBandwidth);
    const LinkPair fastest = *std::max_element(pairs.begin(), pairs.end(), byBandwidth);
    if (fastest.bandwidthBytesPerS > kDistinctBandwidthRatio * slowest.bandwidthBytesPerS)
        return {fastest, slowest};
    return {fastest};
}

} // namespace

Result<std::vector<DesignedRun>> designCalibration(const Topology &topology, const ModelSpec &model,
                                                   const Workload &workload)
{
    if (workload.mode != Mode::Train)
        return badInput("a calibration design is for training workloads (calibrate fits "
                        "training runs)");
    if (model.layers < 2)
        return badInput("model " + model.name
                        + " has fewer than two layers: no two-stage pipeline to exercise a hop");
    const int microBatch
        = workload.train.microBatchSizes.empty() ? 1 : workload.train.microBatchSizes.front();
    const int globalBatch = workload.train.globalBatch;
    if (microBatch < 1 || globalBatch < 2 * microBatch || globalBatch % microBatch != 0)
        return badInput("the global batch (" + std::to_string(globalBatch)
                        + ") must be a multiple of the micro-batch (" + std::to_string(microBatch)
                        + ") and hold at least two, one per data-parallel replica");
    const int microBatches = globalBatch / microBatch;
    const int layers = model.layers;
    const auto name = [&](int gpu) { return topology.gpu(gpu).name; };

    std::vector<DesignedRun> runs;
    // Compute: one GPU of each type alone, at the micro-batch and at twice it.
    std::vector<int> typesSeen;
    for (int gpu = 0; gpu < topology.gpuCount(); ++gpu) {
        const int type = topology.gpu(gpu).typeIndex;
        if (std::find(typesSeen.begin(), typesSeen.end(), type) != typesSeen.end())
            continue;
        typesSeen.push_back(type);
        const std::string typeName = topology.gpuType(gpu).name;
        for (const int size : {microBatch, 2 * microBatch}) {
            if (globalBatch % size != 0)
                continue;
            runs.push_back(
                {"gpu-" + stemOf(typeName) + "-mb" + std::to_string(size),
                 typeName + " compute on " + name(gpu) + " at micro-batch " + std::to_string(size),
                 planOf(model, workload, size,
                        {{size, globalBatch / size, {stageOf({gpu}, 0, layers)}}})});
        }
    }
    // Links: per kind its fastest and slowest pair, as a hop and as a gradient all-reduce.
    for (const auto &[kind, pairs] : pairsByKind(topology)) {
        const std::string kindName(nameOf<LinkKind>(kLinkKindNames, kind));
        for (const LinkPair &pair : extremes(pairs)) {
            const std::string where = name(pair.a) + " - " + name(pair.b);
            const std::string stem
                = kindName + "-" + stemOf(name(pair.a)) + "-" + stemOf(name(pair.b));
            runs.push_back({"pp-" + stem, kindName + " hops " + where,
                            planOf(model, workload, microBatch,
                                   {{microBatch,
                                     microBatches,
                                     {stageOf({pair.a}, 0, layers / 2),
                                      stageOf({pair.b}, layers / 2, layers)}}})});
            const int first = (microBatches + 1) / 2;
            runs.push_back(
                {"dp-" + stem, kindName + " gradient all-reduce " + where,
                 planOf(model, workload, microBatch,
                        {{microBatch, first, {stageOf({pair.a}, 0, layers)}},
                         {microBatch, microBatches - first, {stageOf({pair.b}, 0, layers)}}})});
        }
        // A ring over every machine the kind joins (three or more): how much bus bandwidth a
        // longer ring loses (loss_per_doubling), which no pair of machines shows.
        std::vector<int> ring;
        for (const LinkPair &pair : pairs)
            for (int gpu : {pair.a, pair.b})
                if (topology.gpu(pair.a).machine != topology.gpu(pair.b).machine
                    && std::find(ring.begin(), ring.end(), gpu) == ring.end())
                    ring.push_back(gpu);
        const int replicas = static_cast<int>(ring.size());
        if (replicas < 3 || microBatches < replicas)
            continue;
        std::sort(ring.begin(), ring.end());
        std::vector<Pipeline> pipelines;
        std::string where;
        for (int r = 0; r < replicas; ++r) {
            const int share = microBatches / replicas + (r < microBatches % replicas ? 1 : 0);
            pipelines.push_back({microBatch, share, {stageOf({ring[size_t(r)]}, 0, layers)}});
            where += (r == 0 ? "" : ", ") + name(ring[size_t(r)]);
        }
        runs.push_back({"dp-" + kindName + "-ring", kindName + " gradient all-reduce over " + where,
                        planOf(model, workload, microBatch, std::move(pipelines))});
    }
    for (DesignedRun &run : runs)
        run.plan.cluster = topology.cluster().name;
    return runs;
}

} // namespace hetplan
