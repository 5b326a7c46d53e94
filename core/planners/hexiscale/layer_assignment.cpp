#include "core/planners/hexiscale/layer_assignment.h"

#include "core/base/infinity.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hetplan::hexiscale {
namespace {

class Assigner
{
public:
    Assigner(SearchContext &context, PipelineDraft &draft, int microBatch, int microBatches)
        : m_context(context)
        , m_draft(draft)
        , m_microBatch(microBatch)
        , m_microBatches(microBatches)
        , m_count(int(draft.stages.size()))
    {
        m_hopS.assign(size_t(m_count), 0.0);
        for (int j = 0; j + 1 < m_count; ++j)
            m_hopS[size_t(j)]
                = context.hopS(draft.stages[size_t(j)], draft.stages[size_t(j) + 1], microBatch);
    }

    bool run()
    {
        const int total = m_context.layerCount();
        if (m_count == 0 || m_count > total)
            return false;
        initialByCapacity(total);
        if (!fixMemory())
            return false;
        refine();
        return true;
    }

private:
    SearchContext::StageCost cost(int j, int layers)
    {
        return m_context.stageCost(m_draft.stages[size_t(j)], layers, j, m_count, m_microBatch,
                                   m_microBatches);
    }
    // Per micro-batch busy time of stage j with `layers` layers, its hop included (eq. 9's term).
    double work(int j, int layers) { return cost(j, layers).timeS + m_hopS[size_t(j)]; }
    bool fits(int j, int layers) { return cost(j, layers).fits; }
    std::vector<int> &layers() { return m_draft.layers; }

    // Largest-remainder split of the layers in proportion to layers per second, one at least.
    void initialByCapacity(int total)
    {
        const int reference = std::max(1, total / m_count);
        std::vector<double> rate(static_cast<size_t>(m_count));
        for (int j = 0; j < m_count; ++j) {
            const double t = cost(j, reference).timeS;
            rate[size_t(j)] = t > 0 ? reference / t : 1.0;
        }
        const double rateSum = std::accumulate(rate.begin(), rate.end(), 0.0);
        const int spare = total - m_count;
        std::vector<double> share(static_cast<size_t>(m_count));
        layers().assign(size_t(m_count), 1);
        int given = 0;
        for (int j = 0; j < m_count; ++j) {
            share[size_t(j)] = spare * rate[size_t(j)] / rateSum;
            const int whole = int(std::floor(share[size_t(j)]));
            layers()[size_t(j)] += whole;
            given += whole;
            share[size_t(j)] -= whole;
        }
        std::vector<int> order(static_cast<size_t>(m_count));
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&](int a, int b) { return share[size_t(a)] > share[size_t(b)]; });
        for (int i = 0; given < spare; ++i, ++given)
            ++layers()[size_t(order[size_t(i % m_count)])];
    }

    // Moves layers off stages over their memory to the stage where one more layer costs least.
    bool fixMemory()
    {
        for (int guard = 0; guard < m_context.layerCount() * m_count; ++guard) {
            int over = -1;
            for (int j = 0; j < m_count && over < 0; ++j)
                if (!fits(j, layers()[size_t(j)]))
                    over = j;
            if (over < 0)
                return true;
            if (layers()[size_t(over)] == 1)
                return false;
            int target = -1;
            double targetWork = kInfinity;
            for (int k = 0; k < m_count; ++k) {
                if (k == over || !fits(k, layers()[size_t(k)] + 1))
                    continue;
                const double w = work(k, layers()[size_t(k)] + 1);
                if (w < targetWork) {
                    targetWork = w;
                    target = k;
                }
            }
            if (target < 0)
                return false;
            --layers()[size_t(over)];
            ++layers()[size_t(target)];
        }
        return false;
    }

    double pipelineTime(const std::vector<double> &works) const
    {
        double sum = 0;
        double slowest = 0;
        for (double w : works) {
            sum += w;
            slowest = std::max(slowest, w);
        }
        return sum + (m_microBatches - 1) * slowest;
    }

    // Eq. 9 decides: a move is kept only when the whole pipeline gets faster.
    void refine()
    {
        std::vector<double> works(static_cast<size_t>(m_count));
        for (int j = 0; j < m_count; ++j)
            works[size_t(j)] = work(j, layers()[size_t(j)]);
        double current = pipelineTime(works);
        for (int guard = 0; guard < m_context.layerCount() * m_count; ++guard) {
            const int from = int(std::max_element(works.begin(), works.end()) - works.begin());
            if (layers()[size_t(from)] == 1)
                return;
            const double fromWork = work(from, layers()[size_t(from)] - 1);
            int best = -1;
            double bestTime = current;
            double bestWork = 0;
            for (int k = 0; k < m_count; ++k) {
                if (k == from || !fits(k, layers()[size_t(k)] + 1))
                    continue;
                const double w = work(k, layers()[size_t(k)] + 1);
                std::vector<double> trial = works;
                trial[size_t(from)] = fromWork;
                trial[size_t(k)] = w;
                const double t = pipelineTime(trial);
                if (t < bestTime * (1 - 1e-12)) {
                    bestTime = t;
                    best = k;
                    bestWork = w;
                }
            }
            if (best < 0)
                return;
            --layers()[size_t(from)];
            ++layers()[size_t(best)];
            works[size_t(from)] = fromWork;
            works[size_t(best)] = bestWork;
            current = bestTime;
        }
    }

    SearchContext &m_context;
    PipelineDraft &m_draft;
    int m_microBatch;
    int m_microBatches;
    int m_count;
    std::vector<double> m_hopS;
};

// Compositions of the layers tried exactly per pipeline; beyond, assignLayers.
constexpr double kExactCompositions = 4000;

double compositions(int layers, int stages)
{
    double count = 1; // C(layers − 1, stages − 1)
    for (int i = 1; i < stages; ++i)
        count = count * double(layers - i) / double(i);
    return count;
}

bool exactLayers(SearchContext &context, PipelineDraft &draft, int microBatch, int microBatches)
{
    const int p = int(draft.stages.size());
    const int total = context.layerCount();
    std::vector<double> hop(static_cast<size_t>(p), 0.0);
    for (int j = 0; j + 1 < p; ++j)
        hop[size_t(j)]
            = context.hopS(draft.stages[size_t(j)], draft.stages[size_t(j) + 1], microBatch);
    std::vector<int> layers(static_cast<size_t>(p), 1);
    std::vector<int> best;
    double bestS = kInfinity;
    const auto compose = [&](auto &&self, int j, int left, double sumS, double maxS) -> void {
        const int low = j == p - 1 ? left : 1;
        const int high = j == p - 1 ? left : left - (p - 1 - j);
        for (int l = low; l <= high; ++l) {
            const SearchContext::StageCost c
                = context.stageCost(draft.stages[size_t(j)], l, j, p, microBatch, microBatches);
            if (!c.fits)
                break; // more layers only need more memory
            const double w = c.timeS + hop[size_t(j)];
            const double sum = sumS + w;
            const double most = std::max(maxS, w);
            if (sum + (microBatches - 1) * most >= bestS)
                break; // the time only grows with l
            layers[size_t(j)] = l;
            if (j == p - 1) {
                bestS = sum + (microBatches - 1) * most;
                best = layers;
            } else {
                self(self, j + 1, left - l, sum, most);
            }
        }
    };
    if (p <= total)
        compose(compose, 0, total, 0.0, 0.0);
    if (best.empty())
        return false;
    draft.layers = std::move(best);
    return true;
}

} // namespace

bool assignLayers(SearchContext &context, PipelineDraft &draft, int microBatch, int microBatches)
{
    return Assigner(context, draft, microBatch, std::max(1, microBatches)).run();
}

bool optimiseLayers(SearchContext &context, PipelineDraft &draft, int microBatch, int microBatches)
{
    const int p = int(draft.stages.size());
    if (p == 0 || p > context.layerCount())
        return false;
    if (compositions(context.layerCount(), p) <= kExactCompositions)
        return exactLayers(context, draft, microBatch, std::max(1, microBatches));
    return assignLayers(context, draft, microBatch, microBatches);
}

} // namespace hetplan::hexiscale
