#include "core/planners/hexiscale/search_context.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

namespace hetplan::hexiscale {

SearchContext::SearchContext(const Problem &problem, const CostModel &costModel)
    : m_problem(problem)
    , m_costModel(costModel)
{
    const Topology &topology = problem.topology;
    m_tflops.reserve(size_t(topology.gpuCount()));
    for (int g = 0; g < topology.gpuCount(); ++g)
        m_tflops.push_back(topology.gpuType(g).tflops);
}

StageShape SearchContext::makeStage(std::vector<int> gpus)
{
    std::string key(gpus.size() * sizeof(int), '\0');
    std::memcpy(key.data(), gpus.data(), key.size());
    const auto [it, inserted] = m_stageIds.try_emplace(std::move(key), int(m_stageIds.size()));
    if (inserted)
        m_tpAllowed.push_back(-1);
    return StageShape{std::move(gpus), it->second};
}

bool SearchContext::tpAllowed(const StageShape &stage)
{
    signed char &known = m_tpAllowed[size_t(stage.id)];
    if (known < 0)
        known = m_costModel.allowsTpGroup(m_problem, stage.gpus) ? 1 : 0;
    return known == 1;
}

namespace {

// A stage's position as the cost models read it (docs/planners.md, "Stage costs"): the first
// stage holds the embedding, the last the head, a lone stage both.
enum PositionClass { Only, First, Middle, Last, PositionClasses };

int positionClass(int stageIndex, int stageCount)
{
    if (stageCount == 1)
        return Only;
    if (stageIndex == 0)
        return First;
    return stageIndex + 1 == stageCount ? Last : Middle;
}

} // namespace

StageQuery SearchContext::stageQuery(const StageShape &stage, int layers, int stageIndex,
                                     int stageCount, int microBatch, int microBatches) const
{
    // The cost models read only the layer count and the stage's position (embedding on the
    // first stage, head on the last), so any range with those properties gives the same answer.
    const int total = layerCount();
    int begin = 0;
    if (stageIndex + 1 == stageCount)
        begin = total - layers;
    else if (stageIndex > 0)
        begin = std::min(1, total - layers);
    StageQuery query;
    query.gpus = stage.gpus;
    query.tp = int(stage.gpus.size());
    query.layerBegin = begin;
    query.layerEnd = begin + layers;
    query.microBatch = microBatch;
    query.stageIndex = stageIndex;
    query.stageCount = stageCount;
    query.microBatches = microBatches;
    return query;
}

SearchContext::CostBlock &SearchContext::costBlock(const StageShape &stage, int microBatch,
                                                   int position)
{
    size_t slot = 0;
    while (slot < m_microBatchSizes.size() && m_microBatchSizes[slot] != microBatch)
        ++slot;
    if (slot == m_microBatchSizes.size()) {
        m_microBatchSizes.push_back(microBatch);
        m_blockOf.emplace_back();
    }
    std::vector<int> &blocks = m_blockOf[slot];
    const size_t row = size_t(stage.id) * PositionClasses + size_t(position);
    if (row >= blocks.size())
        blocks.resize(std::max(row + 1, 2 * blocks.size()), -1);
    int &index = blocks[row];
    if (index < 0) {
        index = int(m_blocks.size());
        CostBlock block;
        block.timeS.assign(size_t(layerCount()), std::numeric_limits<double>::quiet_NaN());
        block.perIterationS.assign(size_t(layerCount()), 0.0);
        m_blocks.push_back(std::move(block));
    }
    return m_blocks[size_t(index)];
}

int SearchContext::mostLayersThatFit(const StageShape &stage, int stageIndex, int stageCount,
                                     int microBatch, int microBatches)
{
    // Memory only grows with the layers (docs/cost-models.md, "Memory of a training stage"):
    // bisect for the largest count that fits, 0 when not even one layer does.
    int low = 0;                 // fits (0 layers trivially)
    int high = layerCount() + 1; // does not fit
    while (high - low > 1) {
        const int mid = (low + high) / 2;
        const StageQuery query
            = stageQuery(stage, mid, stageIndex, stageCount, microBatch, microBatches);
        if (m_costModel.estimateStage(m_problem, query).fits)
            low = mid;
        else
            high = mid;
    }
    return low;
}

SearchContext::StageCost SearchContext::stageCost(const StageShape &stage, int layers,
                                                  int stageIndex, int stageCount, int microBatch,
                                                  int microBatches)
{
    assert(stage.id >= 0 && layers >= 1 && layers <= layerCount() && stageIndex < stageCount);
    CostBlock &block = costBlock(stage, microBatch, positionClass(stageIndex, stageCount));
    double &fixedS = block.timeS[size_t(layers) - 1];
    double &perIterationS = block.perIterationS[size_t(layers) - 1];
    if (std::isnan(fixedS)) {
        // A micro-batch's time is a + b/m: the optimizer step runs once per iteration and each
        // of the m micro-batches carries 1/m of it (docs/cost-models.md, "Work besides the
        // GEMMs"). Two questions give a and b exactly (b = 0 where nothing is per iteration).
        const auto timeAt = [&](int m) {
            const StageTiming t
                = m_costModel
                      .estimateStage(m_problem, stageQuery(stage, layers, stageIndex, stageCount,
                                                           microBatch, m))
                      .timing;
            return t.computeS + t.tpCommS;
        };
        const double oneS = timeAt(1);
        const double twoS = timeAt(2);
        perIterationS = 2.0 * (oneS - twoS);
        fixedS = 2.0 * twoS - oneS;
    }
    const double timeS = fixedS + perIterationS / std::max(microBatches, 1);
    // 1F1B keeps min(m, p − j) micro-batches in flight at stage j of p (docs/cost-models.md).
    const int inFlight = std::max(1, std::min(microBatches, stageCount - stageIndex));
    if (size_t(inFlight) > block.mostLayers.size())
        block.mostLayers.resize(size_t(inFlight), -1);
    int &most = block.mostLayers[size_t(inFlight) - 1];
    if (most < 0)
        most = mostLayersThatFit(stage, stageIndex, stageCount, microBatch, microBatches);
    return {timeS, layers <= most};
}

Result<std::vector<std::vector<int>>> SearchContext::split(std::span<const int> gpus, int parts,
                                                           CutOption option, int ufactor,
                                                           std::uint64_t seed)
{
    SplitKey key{{gpus.begin(), gpus.end()}, parts, option, ufactor};
    if (const auto it = m_splits.find(key); it != m_splits.end())
        return it->second;
    Result<std::vector<std::vector<int>>> groups
        = splitGpus(m_problem.topology, gpus, parts, option, ufactor, seed, &m_neighbours);
    if (!groups)
        return groups;
    // Bounded: beyond about 64 MB of remembered splits, start again.
    constexpr size_t kMostSplitGpus = size_t(1) << 23;
    if (m_splitGpus > kMostSplitGpus) {
        m_splits.clear();
        m_splitGpus = 0;
    }
    m_splitGpus += 2 * gpus.size();
    m_splits.emplace(std::move(key), groups.value());
    return groups;
}

double SearchContext::hopS(const StageShape &from, const StageShape &to, int microBatch)
{
    const std::uint64_t key = (std::uint64_t(std::uint32_t(from.id)) << 40)
                              ^ (std::uint64_t(std::uint32_t(to.id)) << 16)
                              ^ std::uint64_t(std::uint32_t(microBatch));
    if (const auto it = m_hops.find(key); it != m_hops.end())
        return it->second;
    StageQuery a;
    a.gpus = from.gpus;
    a.tp = int(from.gpus.size());
    a.layerEnd = 1;
    a.microBatch = microBatch;
    a.stageCount = 2;
    StageQuery b = a;
    b.gpus = to.gpus;
    b.tp = int(to.gpus.size());
    b.stageIndex = 1;
    const double hop = m_costModel.hopS(m_problem, a, b);
    m_hops.emplace(key, hop);
    return hop;
}

PipelineShapeCost SearchContext::pipelineCost(const PipelineDraft &draft, int microBatch,
                                              int microBatches)
{
    PipelineShapeCost cost;
    const int count = int(draft.stages.size());
    for (int j = 0; j < count; ++j) {
        const StageCost stage = stageCost(draft.stages[size_t(j)], draft.layers[size_t(j)], j,
                                          count, microBatch, microBatches);
        double w = stage.timeS;
        if (j + 1 < count)
            w += hopS(draft.stages[size_t(j)], draft.stages[size_t(j) + 1], microBatch);
        cost.sumS += w;
        cost.bottleneckS = std::max(cost.bottleneckS, w);
        cost.fits = cost.fits && stage.fits;
    }
    return cost;
}

Plan SearchContext::toPlan(std::span<const PipelineDraft> drafts, std::span<const int> microBatches,
                           int microBatch) const
{
    assert(drafts.size() == microBatches.size());
    Plan plan;
    plan.costModel = std::string(m_costModel.name());
    plan.cluster = m_problem.topology.cluster().name;
    plan.model = m_problem.model.name;
    plan.workload = m_problem.workload;
    for (size_t p = 0; p < drafts.size(); ++p) {
        Pipeline pipeline;
        pipeline.microBatch = microBatch;
        pipeline.microBatches = microBatches[p];
        int begin = 0;
        for (size_t j = 0; j < drafts[p].stages.size(); ++j) {
            Stage stage;
            stage.gpus = drafts[p].stages[j].gpus;
            stage.tp = int(stage.gpus.size());
            stage.layerBegin = begin;
            begin += drafts[p].layers[j];
            stage.layerEnd = begin;
            pipeline.stages.push_back(std::move(stage));
        }
        plan.pipelines.push_back(std::move(pipeline));
    }
    return plan;
}

} // namespace hetplan::hexiscale
