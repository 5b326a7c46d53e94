#include "core/planners/hexiscale/idle_gpus.h"

#include "core/base/infinity.h"
#include "core/model/topology.h"
#include "core/planners/hexiscale/layer_assignment.h"

#include <algorithm>
#include <map>
#include <utility>

namespace hetplan::hexiscale {
namespace {

// Places tried per pipeline for a new stage: all when there are few, else evenly spread.
constexpr int kAdditionPositions = 8;

// One machine's idle GPUs as stages: one TP group where the cost model allows it, else the
// widest allowed halves, else a stage per GPU.
std::vector<StageShape> stagesOf(SearchContext &context, const std::vector<int> &gpus)
{
    for (size_t width = gpus.size(); width >= 1; width /= 2) {
        std::vector<StageShape> stages;
        bool allowed = true;
        for (size_t at = 0; at < gpus.size() && allowed; at += width) {
            StageShape stage = context.makeStage(
                {gpus.begin() + long(at), gpus.begin() + long(std::min(gpus.size(), at + width))});
            allowed = stage.gpus.size() == 1 || context.tpAllowed(stage);
            stages.push_back(std::move(stage));
        }
        if (allowed)
            return stages;
    }
    return {};
}

std::vector<int> insertPositions(int stageCount)
{
    std::vector<int> positions;
    for (int i = 0; i < kAdditionPositions; ++i) {
        const int k = stageCount + 1 <= kAdditionPositions
                          ? i
                          : int((long(i) * stageCount) / (kAdditionPositions - 1));
        if (k <= stageCount && (positions.empty() || positions.back() != k))
            positions.push_back(k);
    }
    return positions;
}

class Adder
{
public:
    Adder(SearchContext &context, const Layout &layout,
          const std::function<double(const Layout &)> &costS)
        : m_context(context)
        , m_layout(layout)
        , m_costS(costS)
        , m_globalBatch(context.problem().workload.train.globalBatch)
    {}

    // The best addition of `gpus` (one machine's idle GPUs) found, if any fits; else why not.
    std::optional<Addition> bestOf(const std::vector<int> &gpus, std::string &whyNot)
    {
        const std::vector<StageShape> added = stagesOf(m_context, gpus);
        m_stageRoom = false;
        m_pipelineRoom = false;
        std::optional<Addition> best;
        if (added.empty()) {
            whyNot = "the cost model allows no TP group on them";
            return best;
        }
        // A cluster in parts: the plan spans one, and nothing joins these GPUs to it.
        const int planGpu = m_layout.drafts.front().stages.front().gpus.front();
        if (!m_context.problem().topology.connected(gpus.front(), planGpu)) {
            whyNot = "no link joins them to the GPUs the plan uses (the cluster is in parts "
                     "and a plan spans one)";
            return best;
        }
        for (size_t p = 0; p < m_layout.drafts.size() && !m_context.shouldStop(); ++p)
            keepBetter(best, asStage(p, added));
        keepBetter(best, asPipeline(added));
        if (!best) {
            whyNot = m_stageRoom
                         ? "no place tried in a pipeline fits in memory or links to its neighbours"
                         : "every pipeline has a stage per layer";
            whyNot += m_pipelineRoom ? ", and a pipeline of their own does not fit in memory"
                                     : ", and no micro-batch is left for another pipeline";
        }
        return best;
    }

private:
    static void keepBetter(std::optional<Addition> &best, std::optional<Addition> candidate)
    {
        if (candidate && (!best || candidate->costS < best->costS))
            best = std::move(candidate);
    }

    // Into pipeline p: the place where eq. 9's closed form is fastest, then priced in full.
    std::optional<Addition> asStage(size_t p, const std::vector<StageShape> &added)
    {
        const PipelineDraft &draft = m_layout.drafts[p];
        const int count = int(draft.stages.size());
        if (count + int(added.size()) > m_context.layerCount())
            return std::nullopt;
        const int microBatches = m_layout.microBatches[p];
        std::optional<PipelineDraft> bestDraft;
        int bestAt = 0;
        double bestS = kInfinity;
        m_stageRoom = true;
        for (int at : insertPositions(count)) {
            PipelineDraft next = draft;
            next.stages.insert(next.stages.begin() + at, added.begin(), added.end());
            if (!optimiseLayers(m_context, next, m_layout.microBatch, microBatches))
                continue;
            const PipelineShapeCost shape
                = m_context.pipelineCost(next, m_layout.microBatch, microBatches);
            if (shape.fits && shape.timeS(microBatches) < bestS) {
                bestS = shape.timeS(microBatches);
                bestDraft = std::move(next);
                bestAt = at;
            }
        }
        if (!bestDraft)
            return std::nullopt;
        Addition addition{m_layout, 0, ""};
        addition.layout.drafts[p] = std::move(*bestDraft);
        addition.use
            = "a stage at position " + std::to_string(bestAt) + " of pipeline " + std::to_string(p);
        return priced(std::move(addition));
    }

    std::optional<Addition> asPipeline(const std::vector<StageShape> &added)
    {
        const int units = m_globalBatch / m_layout.microBatch;
        if (int(m_layout.drafts.size()) >= units || int(added.size()) > m_context.layerCount())
            return std::nullopt;
        m_pipelineRoom = true;
        PipelineDraft draft{added, {}};
        if (!optimiseLayers(m_context, draft, m_layout.microBatch, 1))
            return std::nullopt;
        Addition addition{m_layout, 0, "a pipeline of its own"};
        addition.layout.drafts.push_back(std::move(draft));
        addition.layout.microBatches.push_back(1);
        return priced(std::move(addition));
    }

    Addition priced(Addition addition)
    {
        rebalance(m_context, addition.layout, m_globalBatch);
        addition.costS = m_costS(addition.layout);
        return addition;
    }

    SearchContext &m_context;
    const Layout &m_layout;
    const std::function<double(const Layout &)> &m_costS;
    int m_globalBatch;
    bool m_stageRoom = false;    // whether a pipeline had room for another stage
    bool m_pipelineRoom = false; // whether the batch had a micro-batch for another pipeline
};

} // namespace

std::vector<IdleGpus> idleGpus(SearchContext &context, const Layout &layout,
                               const std::function<double(const Layout &)> &costS)
{
    const Topology &topology = context.problem().topology;
    const std::vector<char> used = usedGpus(topology.gpuCount(), layout);
    // Idle GPUs machine by machine, in cluster order.
    std::map<int, std::vector<int>> idleOn;
    for (int g = 0; g < topology.gpuCount(); ++g)
        if (!used[size_t(g)])
            idleOn[topology.gpu(g).machine].push_back(g);

    const std::vector<Machine> &machines = topology.cluster().machines;
    std::vector<IdleGpus> classes;
    std::vector<std::vector<int>> tried; // per class: the GPUs of its first machine
    for (const auto &[machine, gpus] : idleOn) {
        const std::string &type = machines[size_t(machine)].gpu;
        const int idleCount = int(gpus.size());
        const auto known = std::find_if(classes.begin(), classes.end(), [&](const IdleGpus &c) {
            return c.gpuType == type && c.gpusPerMachine == idleCount;
        });
        if (known != classes.end()) {
            known->machines.push_back(machine);
            continue;
        }
        classes.push_back({{machine}, int(gpus.size()), type, kInfinity, "", ""});
        tried.push_back(gpus);
    }
    Adder adder(context, layout, costS);
    for (size_t c = 0; c < classes.size() && !context.shouldStop(); ++c) {
        std::optional<Addition> addition = adder.bestOf(tried[c], classes[c].whyNot);
        if (!addition)
            continue;
        classes[c].withOneAddedS = addition->costS;
        classes[c].bestUse = addition->use;
    }
    return classes;
}

} // namespace hetplan::hexiscale
