#include "core/planners/hexiscale/local_search.h"

#include "core/base/infinity.h"
#include "core/planners/hexiscale/batch_balance.h"
#include "core/planners/hexiscale/layer_assignment.h"

#include <algorithm>
#include <optional>

namespace hetplan::hexiscale {

std::vector<char> usedGpus(int gpuCount, const Layout &layout)
{
    std::vector<char> used(size_t(gpuCount), 0);
    for (const PipelineDraft &draft : layout.drafts)
        for (const StageShape &stage : draft.stages)
            for (int g : stage.gpus)
                used[size_t(g)] = 1;
    return used;
}

void rebalance(SearchContext &context, Layout &layout, int globalBatch)
{
    const int units = globalBatch / layout.microBatch;
    std::vector<PipelineShapeCost> shapes;
    for (size_t p = 0; p < layout.drafts.size(); ++p)
        shapes.push_back(
            context.pipelineCost(layout.drafts[p], layout.microBatch, layout.microBatches[p]));
    std::vector<int> counts = balanceMicroBatches(shapes, units);
    if (!counts.empty())
        layout.microBatches = std::move(counts);
}

namespace {

constexpr double kMinPassGain = 1e-3; // relative

class Climber
{
public:
    Climber(SearchContext &context, const std::function<double(const Layout &)> &costS,
            int evaluations)
        : m_context(context)
        , m_costS(costS)
        , m_left(evaluations)
    {}

    Layout run(Layout layout)
    {
        double currentS = m_costS(layout);
        while (m_left > 0 && !m_context.shouldStop()) {
            m_bestS = currentS;
            m_best.reset();
            neighbours(layout);
            if (!m_best)
                break;
            // The budget follows the gains (docs/planners.md, "Polish"): a pass that gained
            // less than kMinPassGain ends the climb, as the next would cost as much for less.
            const bool small = m_bestS > currentS * (1 - kMinPassGain);
            layout = std::move(*m_best);
            currentS = m_bestS;
            if (small)
                break;
        }
        return layout;
    }

private:
    bool exhausted() const { return m_left <= 0 || m_context.shouldStop(); }

    // Re-optimises the layers of the changed pipelines, rebalances, and keeps the candidate if
    // it is the best neighbour so far.
    void consider(Layout candidate, const std::vector<size_t> &changed)
    {
        if (exhausted())
            return;
        for (size_t p : changed) {
            if (!optimiseLayers(m_context, candidate.drafts[p], candidate.microBatch,
                                candidate.microBatches[p]))
                return;
        }
        const int globalBatch = m_context.problem().workload.train.globalBatch;
        rebalance(m_context, candidate, globalBatch);
        // The layers were chosen for the old counts; once more for the new ones (eq. 9 weighs
        // the bottleneck by m).
        if (!changed.empty()) {
            for (size_t p : changed)
                optimiseLayers(m_context, candidate.drafts[p], candidate.microBatch,
                               candidate.microBatches[p]);
            rebalance(m_context, candidate, globalBatch);
        }
        --m_left;
        const double costS = m_costS(candidate);
        if (costS < m_bestS * (1 - 1e-9)) {
            m_bestS = costS;
            m_best = std::move(candidate);
        }
    }

    void neighbours(const Layout &layout)
    {
        const Topology &topology = m_context.problem().topology;
        const std::vector<char> used = usedGpus(topology.gpuCount(), layout);

        betweenPipelines(layout, used);
        for (size_t p = 0; p < layout.drafts.size() && !exhausted(); ++p) {
            const std::vector<StageShape> &stages = layout.drafts[p].stages;
            const int count = int(stages.size());
            consider(layout, {p}); // the layers alone
            for (int j = 0; j < count && !exhausted(); ++j) {
                if (count > 1) // idle stage j
                    apply(layout, p, [j](std::vector<StageShape> &s) {
                        s.erase(s.begin() + j);
                        return true;
                    });
                for (int k = 0; k < count && !exhausted(); ++k) { // stage j to position k
                    if (k == j || k == j + 1)
                        continue;
                    apply(layout, p, [j, k](std::vector<StageShape> &s) {
                        StageShape moved = s[size_t(j)];
                        s.erase(s.begin() + j);
                        s.insert(s.begin() + (k > j ? k - 1 : k), std::move(moved));
                        return true;
                    });
                }
                if (j + 1 < count) // merge j and j + 1 into one TP group
                    apply(layout, p, [this, j](std::vector<StageShape> &s) { return merge(s, j); });
                if (stages[size_t(j)].gpus.size() > 1) // split j in two
                    apply(layout, p, [this, j](std::vector<StageShape> &s) { return split(s, j); });
            }
            // An idle GPU (or all idle GPUs of its machine) as a new stage anywhere.
            for (int g = 0; g < topology.gpuCount() && !exhausted(); ++g) {
                if (used[size_t(g)])
                    continue;
                if (g > 0 && !used[size_t(g) - 1]
                    && topology.gpu(g - 1).machine == topology.gpu(g).machine)
                    continue; // one representative per machine's idle run
                for (const std::vector<int> &gpus : idleGroups(g, used)) {
                    StageShape stage = m_context.makeStage(gpus);
                    if (gpus.size() > 1 && !m_context.tpAllowed(stage))
                        continue;
                    for (int k = 0; k <= count && count < m_context.layerCount() && !exhausted();
                         ++k) {
                        Layout next = layout;
                        next.drafts[p].stages.insert(next.drafts[p].stages.begin() + k, stage);
                        consider(std::move(next), {p});
                    }
                }
            }
        }
    }

    // Moves that change the set of pipelines: idle one, split one in two data-parallel
    // replicas, join two, move a stage from one to another, an idle GPU as a pipeline.
    void betweenPipelines(const Layout &layout, const std::vector<char> &used)
    {
        const size_t k = layout.drafts.size();
        const int units = m_context.problem().workload.train.globalBatch / layout.microBatch;
        for (size_t p = 0; p < k && !exhausted(); ++p) {
            if (k > 1) {
                Layout next = layout;
                next.drafts.erase(next.drafts.begin() + long(p));
                next.microBatches.erase(next.microBatches.begin() + long(p));
                consider(std::move(next), {});
            }
            const auto &stages = layout.drafts[p].stages;
            for (size_t cut = 1; cut < stages.size() && int(k) < units && !exhausted(); ++cut) {
                Layout next = layout;
                PipelineDraft tail{{stages.begin() + long(cut), stages.end()}, {}};
                next.drafts[p].stages.resize(cut);
                next.drafts.push_back(std::move(tail));
                next.microBatches.push_back(1);
                consider(std::move(next), {p, k});
            }
            for (size_t q = 0; q < k && !exhausted(); ++q) {
                if (q == p)
                    continue;
                if (stages.size() + layout.drafts[q].stages.size()
                    <= size_t(m_context.layerCount())) {
                    Layout next = layout;
                    auto &joined = next.drafts[p].stages;
                    joined.insert(joined.end(), layout.drafts[q].stages.begin(),
                                  layout.drafts[q].stages.end());
                    next.drafts.erase(next.drafts.begin() + long(q));
                    next.microBatches.erase(next.microBatches.begin() + long(q));
                    consider(std::move(next), {q < p ? p - 1 : p});
                }
                if (stages.size() < 2
                    || layout.drafts[q].stages.size() >= size_t(m_context.layerCount()))
                    continue;
                for (size_t j = 0; j < stages.size() && !exhausted(); ++j)
                    for (size_t at = 0; at <= layout.drafts[q].stages.size() && !exhausted();
                         ++at) {
                        Layout next = layout;
                        auto &from = next.drafts[p].stages;
                        auto &to = next.drafts[q].stages;
                        to.insert(to.begin() + long(at), from[j]);
                        from.erase(from.begin() + long(j));
                        consider(std::move(next), {p, q});
                    }
            }
        }
        if (int(k) >= units)
            return;
        const Topology &topology = m_context.problem().topology;
        for (int g = 0; g < topology.gpuCount() && !exhausted(); ++g) {
            if (used[size_t(g)])
                continue;
            if (g > 0 && !used[size_t(g) - 1]
                && topology.gpu(g - 1).machine == topology.gpu(g).machine)
                continue;
            for (const std::vector<int> &gpus : idleGroups(g, used)) {
                StageShape stage = m_context.makeStage(gpus);
                if (gpus.size() > 1 && !m_context.tpAllowed(stage))
                    continue;
                Layout next = layout;
                next.drafts.push_back({{stage}, {}});
                next.microBatches.push_back(1);
                consider(std::move(next), {k});
            }
        }
    }

    std::vector<std::vector<int>> idleGroups(int first, const std::vector<char> &used) const
    {
        const Topology &topology = m_context.problem().topology;
        std::vector<int> run;
        for (int g = first; g < topology.gpuCount() && !used[size_t(g)]
                            && topology.gpu(g).machine == topology.gpu(first).machine;
             ++g)
            run.push_back(g);
        std::vector<std::vector<int>> groups{{first}};
        if (run.size() > 1)
            groups.push_back(run);
        return groups;
    }

    // Pipelines with the same machines and group sizes at every position as pipeline p.
    std::vector<size_t> twinsOf(const Layout &layout, size_t p) const
    {
        const Topology &topology = m_context.problem().topology;
        const auto shape = [&](const PipelineDraft &d) {
            std::vector<std::pair<int, size_t>> result;
            for (const StageShape &s : d.stages)
                result.emplace_back(topology.gpu(s.gpus.front()).machine, s.gpus.size());
            return result;
        };
        const auto mine = shape(layout.drafts[p]);
        std::vector<size_t> twins;
        for (size_t q = 0; q < layout.drafts.size(); ++q)
            if (shape(layout.drafts[q]) == mine)
                twins.push_back(q);
        return twins;
    }

    // A move on pipeline p alone, and the same move on all its twins: data-parallel replicas
    // of one shape usually have to change together, or the gradient sync no longer lines up.
    template<typename Move>
    void apply(const Layout &layout, size_t p, Move &&move)
    {
        if (exhausted())
            return;
        {
            Layout next = layout;
            if (move(next.drafts[p].stages))
                consider(std::move(next), {p});
        }
        const std::vector<size_t> twins = twinsOf(layout, p);
        if (twins.size() < 2)
            return;
        Layout next = layout;
        for (size_t q : twins)
            if (!move(next.drafts[q].stages))
                return;
        consider(std::move(next), twins);
    }

    bool merge(std::vector<StageShape> &stages, int j)
    {
        const Topology &topology = m_context.problem().topology;
        if (topology.gpu(stages[size_t(j)].gpus.front()).machine
            != topology.gpu(stages[size_t(j) + 1].gpus.front()).machine)
            return false;
        std::vector<int> gpus = stages[size_t(j)].gpus;
        gpus.insert(gpus.end(), stages[size_t(j) + 1].gpus.begin(),
                    stages[size_t(j) + 1].gpus.end());
        std::sort(gpus.begin(), gpus.end());
        StageShape merged = m_context.makeStage(std::move(gpus));
        if (!m_context.tpAllowed(merged))
            return false;
        stages[size_t(j)] = std::move(merged);
        stages.erase(stages.begin() + j + 1);
        return true;
    }

    bool split(std::vector<StageShape> &stages, int j)
    {
        if (int(stages.size()) >= m_context.layerCount())
            return false;
        const std::vector<int> gpus = stages[size_t(j)].gpus;
        const size_t half = gpus.size() / 2;
        StageShape a = m_context.makeStage({gpus.begin(), gpus.begin() + long(half)});
        StageShape b = m_context.makeStage({gpus.begin() + long(half), gpus.end()});
        if ((a.gpus.size() > 1 && !m_context.tpAllowed(a))
            || (b.gpus.size() > 1 && !m_context.tpAllowed(b)))
            return false;
        stages[size_t(j)] = std::move(a);
        stages.insert(stages.begin() + j + 1, std::move(b));
        return true;
    }

    SearchContext &m_context;
    const std::function<double(const Layout &)> &m_costS;
    int m_left;
    double m_bestS = kInfinity;
    std::optional<Layout> m_best;
};

} // namespace

Layout polish(SearchContext &context, Layout layout, int evaluations,
              const std::function<double(const Layout &)> &costS)
{
    return Climber(context, costS, evaluations).run(std::move(layout));
}

} // namespace hetplan::hexiscale
