#include "core/planners/hexiscale/search_context.h"

#include <cassert>
#include <cstring>

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

size_t SearchContext::StageKeyHash::operator()(const StageKey &k) const
{
    std::uint64_t h = 1469598103934665603ull;
    for (int v : {k.stage, k.layers, k.stageIndex, k.stageCount, k.microBatch, k.microBatches})
        h = (h ^ std::uint64_t(std::uint32_t(v))) * 1099511628211ull;
    return size_t(h);
}

SearchContext::StageCost SearchContext::stageCost(const StageShape &stage, int layers,
                                                  int stageIndex, int stageCount, int microBatch,
                                                  int microBatches)
{
    assert(stage.id >= 0 && layers >= 1 && stageIndex < stageCount);
    const StageKey key{stage.id, layers, stageIndex, stageCount, microBatch, microBatches};
    if (const auto it = m_stageCosts.find(key); it != m_stageCosts.end())
        return it->second;
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
    const StageEstimate estimate = m_costModel.estimateStage(m_problem, query);
    const StageCost cost{estimate.timing.computeS + estimate.timing.tpCommS, estimate.fits};
    m_stageCosts.emplace(key, cost);
    return cost;
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
