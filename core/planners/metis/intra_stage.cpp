#include "core/planners/metis/intra_stage.h"

#include <algorithm>
#include <optional>

namespace hetplan::metis {

namespace {

// DFS nodes visited per sequence and micro-batch size.
constexpr int kMaxSteps = 64;

class Dfs
{
public:
    Dfs(StageCatalog &catalog, int microBatches, int maxPlans,
        const std::function<void(const Candidate &)> &accept)
        : m_catalog(catalog)
        , m_microBatches(microBatches)
        , m_maxPlans(maxPlans)
        , m_accept(accept)
    {}

    // LayerLB: stages before `capped` keep within their memory; the rest are balanced by
    // capacity alone (the DFS checks them when it reaches them).
    bool rebalance(Candidate &state, int capped)
    {
        const int count = int(state.plans.size());
        m_loads.resize(size_t(count));
        for (int j = 0; j < count; ++j) {
            const Position position = positionOf(j, count, m_microBatches);
            StageLoad load = m_catalog.load(state.plans[size_t(j)], position);
            if (j + 1 < count)
                load.fixedS += m_catalog.hopS(state.plans[size_t(j)], state.plans[size_t(j) + 1]);
            if (j >= capped)
                load.maxLayers = m_catalog.layerCount();
            m_loads[size_t(j)] = load;
        }
        std::optional<std::vector<int>> layers = balanceLayers(m_loads, m_catalog.layerCount());
        if (!layers)
            return false;
        state.layers = std::move(*layers);
        return true;
    }

    void run(int i, Candidate state)
    {
        // Each out-of-memory stage branches twice; the budget bounds the tree, not only the
        // plans at its leaves (most branches die on a later stage).
        if (m_outcome.complete >= m_maxPlans || ++m_steps > kMaxSteps)
            return;
        const int count = int(state.plans.size());
        if (i == count) {
            state.metisCostS = metisCostS(m_catalog, state);
            ++m_outcome.complete;
            m_accept(state);
            return;
        }
        const Position position = positionOf(i, count, m_microBatches);
        const int fitting = m_catalog.load(state.plans[size_t(i)], position).maxLayers;
        if (state.layers[size_t(i)] <= fitting) {
            run(i + 1, std::move(state));
            return;
        }
        // DetectOOM (line 29). First path: raise TP, lower DP; data and layers rebalanced.
        if (const int raised = m_catalog.raiseTp(state.plans[size_t(i)]); raised >= 0) {
            Candidate branch = state;
            branch.plans[size_t(i)] = raised;
            if (rebalance(branch, i))
                run(i, std::move(branch));
        }
        // Second path (lines 38–41): keep the intra-stage plan, move the stage's excess layers
        // to the others by capacity.
        if (rebalance(state, i + 1))
            run(i + 1, std::move(state));
        else
            m_outcome.outOfMemory = true;
    }

    SequenceOutcome outcome() const { return m_outcome; }

private:
    StageCatalog &m_catalog;
    int m_microBatches;
    int m_maxPlans;
    const std::function<void(const Candidate &)> &m_accept;
    std::vector<StageLoad> m_loads;
    SequenceOutcome m_outcome;
    int m_steps = 0;
};

} // namespace

SequenceOutcome searchSequence(StageCatalog &catalog, std::span<const int> groups, int microBatch,
                               int microBatches, int maxPlans,
                               const std::function<void(const Candidate &)> &accept)
{
    if (int(groups.size()) > catalog.layerCount())
        return {};
    Candidate start;
    start.microBatch = microBatch;
    start.microBatches = microBatches;
    for (int group : groups) {
        const int plan = catalog.dataParallelFirst(group, microBatch);
        if (plan < 0)
            return {};
        start.plans.push_back(plan);
    }
    Dfs dfs(catalog, microBatches, maxPlans, accept);
    if (!dfs.rebalance(start, 0))
        return {};
    dfs.run(0, std::move(start));
    return dfs.outcome();
}

double metisCostS(StageCatalog &catalog, const Candidate &candidate)
{
    const int count = int(candidate.plans.size());
    double sumS = 0;
    double slowestS = 0;
    double syncS = 0;
    for (int j = 0; j < count; ++j) {
        const int plan = candidate.plans[size_t(j)];
        const Position position = positionOf(j, count, candidate.microBatches);
        const StageLoad load = catalog.load(plan, position);
        double stageS = load.fixedS + candidate.layers[size_t(j)] * load.perLayerS;
        if (j + 1 < count)
            stageS += catalog.hopS(plan, candidate.plans[size_t(j) + 1]);
        sumS += stageS;
        slowestS = std::max(slowestS, stageS);
        // Stages synchronise their own parameters at once; the slowest sets DP_all.
        syncS = std::max(syncS, catalog.gradientSyncS(plan, candidate.layers[size_t(j)], position));
    }
    return sumS + (candidate.microBatches - 1) * slowestS + syncS;
}

} // namespace hetplan::metis
