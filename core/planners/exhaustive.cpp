// The plan space enumerated, exactly (HexiScale's space, §3.2 and §4):
//  - any subset of the GPUs is used; the used GPUs form K >= 1 pipelines (any set partition);
//  - a pipeline is an ordered sequence of stages; a stage is a TP group of GPUs inside one
//    machine that the cost model allows (tpGroupProblem), dp = 1; at most `layers` stages;
//  - layers: every composition of the model's L layers into the stage counts (each >= 1);
//  - one micro-batch size b for all pipelines, any candidate of the workload dividing the
//    global batch G; micro-batch counts m_i >= 1 with Σ m_i = G / b.
// Completeness and the reductions that keep it fast:
//  1. GPUs of one machine are interchangeable when no pair override names any of them (same
//     type, same intra link, same network path). In such a machine a stage of t GPUs takes the
//     t lowest free ones: any plan maps to one enumerated with equal cost by relabelling each
//     machine's GPUs in the order the enumeration takes them. Machines with overrides get
//     every subset.
//  2. Pipelines are an unordered set (the cost is symmetric in them), so they are enumerated
//     with non-increasing signatures; relabelling (1) is applied after sorting them. A stage
//     list whose signature already exceeds the previous pipeline's is not extended: appending
//     stages keeps it lexicographically greater. No structure has more pipelines than the
//     largest G / b (every pipeline needs a micro-batch).
//  3. Memory: a layer split is dropped when a stage does not fit even with one micro-batch
//     (memory only grows with the micro-batches in flight).
//  4. Micro-batches: for fixed stages and layers the cost model's iteration time is
//     max_i T_i(m_i) + DP, with DP independent of the m_i and T_i(m) = Σ_j w_ij + (m − 1)·
//     max_j w_ij (HexiScale eq. 9, +∞ when pipeline i does not fit with m micro-batches),
//     nondecreasing in m. Handing out micro-batches one at a time to the pipeline whose time
//     after it is smallest minimises max_i T_i exactly, so only that distribution is evaluated.
//  5. Bound: max_i T_i is a lower bound of the iteration time, so layouts whose bound is not
//     below the best found are skipped without a full evaluation (objectiveS).
// Size: a layout is a structure (reductions 1-2), a micro-batch size and one layer composition
// per pipeline; there are Σ_structures Σ_b Π_i C(L − 1, p_i − 1) of them. They are counted
// before anything is evaluated and the planner refuses past the knob max_plans. Nothing is
// materialised: structures, compositions and layouts are generated depth-first, so memory is
// O(GPUs · layers) plus SearchContext's per-stage caches.
// The per-stage times come from estimateStage/hopS, the final costs from objectiveS.
#include "core/planners/exhaustive.h"

#include "core/base/infinity.h"
#include "core/cost/cost_model.h"
#include "core/planners/hexiscale/batch_balance.h"
#include "core/planners/hexiscale/hexiscale_planner.h"
#include "core/planners/hexiscale/search_context.h"
#include "core/planners/search_reporter.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

namespace hetplan {
namespace {

using namespace hexiscale;

constexpr std::uint64_t kSaturated = std::numeric_limits<std::uint64_t>::max();
// Past this many structures the count stops at "more than"; counting stays well under a second.
constexpr long kMostStructuresCounted = 200000;

std::uint64_t saturatingAdd(std::uint64_t a, std::uint64_t b)
{
    return a > kSaturated - b ? kSaturated : a + b;
}

std::uint64_t saturatingMul(std::uint64_t a, std::uint64_t b)
{
    std::uint64_t product = 0;
    return __builtin_mul_overflow(a, b, &product) ? kSaturated : product;
}

// C(n, k); exact while every partial product fits, kSaturated past that.
std::uint64_t binomial(int n, int k)
{
    if (k < 0 || k > n)
        return 0;
    k = std::min(k, n - k);
    std::uint64_t result = 1;
    for (int i = 1; i <= k; ++i) {
        const std::uint64_t scaled = saturatingMul(result, std::uint64_t(n - k + i));
        if (scaled == kSaturated)
            return kSaturated;
        result = scaled / std::uint64_t(i); // C(n−k+i, i) = C(n−k+i−1, i−1)·(n−k+i)/i exactly
    }
    return result;
}

class Enumerator
{
public:
    Enumerator(const Problem &problem, const CostModel &costModel, std::stop_token stop,
               ProgressSink &progress)
        : m_problem(problem)
        , m_costModel(costModel)
        , m_context(problem, costModel)
        , m_reporter(std::move(stop), progress)
    {
        const Topology &topology = problem.topology;
        const Cluster &cluster = topology.cluster();
        m_symmetric.assign(cluster.machines.size(), true);
        for (const PairOverride &o : cluster.pairOverrides)
            for (const std::string &name : {o.a, o.b})
                if (const auto gpu = topology.findGpu(name))
                    m_symmetric[size_t(topology.gpu(*gpu).machine)] = false;
        m_free.assign(size_t(topology.gpuCount()), true);
        const TrainWorkload &train = problem.workload.train;
        for (int b : train.microBatchSizes)
            if (b >= 1 && train.globalBatch % b == 0
                && std::find(m_microBatches.begin(), m_microBatches.end(), b)
                       == m_microBatches.end()) {
                m_microBatches.push_back(b);
                m_mostPipelines = std::max(m_mostPipelines, train.globalBatch / b);
            }
    }

    struct Count
    {
        std::uint64_t layouts = 0;
        bool exact = true; // false: counting stopped early, layouts is a lower bound
    };

    // Reduction-free size of the enumeration (see the file comment); stops counting once past
    // `budget` and kMostStructuresCounted structures, since the answer is then "refuse".
    Count countLayouts(std::uint64_t budget)
    {
        m_pass = Pass::Count;
        m_count = {};
        m_countBudget = budget;
        m_halted = false;
        forEachStructure();
        m_halted = false;
        m_structures = 0;
        return m_count;
    }

    // A known plan (HexiScale's) as the first incumbent: only the bounds get sharper; the
    // enumeration still returns the optimum, which is this plan when nothing beats it.
    void seed(Plan plan)
    {
        const double costS = m_costModel.objectiveS(m_problem, plan);
        if (costS < m_bestS) {
            m_bestS = costS;
            m_best = std::move(plan);
        }
    }

    void run()
    {
        m_pass = Pass::Evaluate;
        forEachStructure();
    }

    bool found() const { return m_best.has_value(); }
    const Plan &bestPlan() const { return *m_best; }
    std::vector<TracePoint> trace() const
    {
        std::vector<TracePoint> result = m_reporter.trace();
        result.push_back({m_structures, m_reporter.elapsedS(), m_bestS});
        return result;
    }
    bool stopped() const { return m_reporter.stopRequested(); }

private:
    enum class Pass { Count, Evaluate };
    using Signature = std::vector<long>;

    bool halted() const { return m_halted || m_reporter.stopRequested(); }

    Signature signatureOf(const std::vector<StageShape> &stages) const
    {
        Signature signature;
        for (const StageShape &s : stages) {
            const int machine = m_problem.topology.gpu(s.gpus.front()).machine;
            long code = long(machine) * 1000000;
            if (m_symmetric[size_t(machine)]) {
                code += long(s.gpus.size());
            } else {
                long mask = 0;
                for (int g : s.gpus)
                    mask |= 1L << (g - m_problem.topology.firstGpuOf(machine));
                code += 1000 + mask;
            }
            signature.push_back(code);
        }
        return signature;
    }

    void forEachStructure()
    {
        std::vector<std::vector<StageShape>> pipelines;
        std::vector<Signature> signatures;
        addPipeline(pipelines, signatures);
    }

    // Either the set of pipelines is complete (visit it), or one more pipeline starts.
    void addPipeline(std::vector<std::vector<StageShape>> &pipelines,
                     std::vector<Signature> &signatures)
    {
        if (halted())
            return;
        if (!pipelines.empty()) {
            if (m_pass == Pass::Count)
                countStructure(pipelines);
            else
                evaluateStructure(pipelines);
        }
        if (int(pipelines.size()) >= m_mostPipelines)
            return;
        std::vector<StageShape> stages;
        extendPipeline(pipelines, signatures, stages);
    }

    void extendPipeline(std::vector<std::vector<StageShape>> &pipelines,
                        std::vector<Signature> &signatures, std::vector<StageShape> &stages)
    {
        if (halted())
            return;
        if (!stages.empty()) {
            // Non-increasing signatures: the set of pipelines is generated once per order.
            Signature signature = signatureOf(stages);
            if (!signatures.empty() && signatures.back() < signature)
                return; // every extension is greater too
            pipelines.push_back(stages);
            signatures.push_back(std::move(signature));
            addPipeline(pipelines, signatures);
            signatures.pop_back();
            pipelines.pop_back();
        }
        if (int(stages.size()) == m_problem.model.layers)
            return;
        forEachStage([&](StageShape stage) {
            for (int g : stage.gpus)
                m_free[size_t(g)] = false;
            stages.push_back(std::move(stage));
            extendPipeline(pipelines, signatures, stages);
            for (int g : stages.back().gpus)
                m_free[size_t(g)] = true;
            stages.pop_back();
        });
    }

    template<typename Visit>
    void forEachStage(Visit &&visit)
    {
        const Topology &topology = m_problem.topology;
        const int machines = int(topology.cluster().machines.size());
        for (int machine = 0; machine < machines && !halted(); ++machine) {
            const int first = topology.firstGpuOf(machine);
            const int count = topology.cluster().machines[size_t(machine)].count;
            std::vector<int> free;
            for (int g = first; g < first + count; ++g)
                if (m_free[size_t(g)])
                    free.push_back(g);
            if (m_symmetric[size_t(machine)]) {
                for (int t = 1; t <= int(free.size()); ++t) {
                    StageShape stage = m_context.makeStage({free.begin(), free.begin() + t});
                    if (t == 1 || m_context.tpAllowed(stage))
                        visit(std::move(stage));
                }
                continue;
            }
            const int n = int(free.size());
            for (int mask = 1; mask < (1 << n); ++mask) {
                std::vector<int> gpus;
                for (int i = 0; i < n; ++i)
                    if (mask & (1 << i))
                        gpus.push_back(free[size_t(i)]);
                StageShape stage = m_context.makeStage(std::move(gpus));
                if (stage.gpus.size() == 1 || m_context.tpAllowed(stage))
                    visit(std::move(stage));
            }
        }
    }

    void countStructure(const std::vector<std::vector<StageShape>> &pipelines)
    {
        const int total = m_problem.model.layers;
        for (int b : m_microBatches) {
            if (int(pipelines.size()) > m_problem.workload.train.globalBatch / b)
                continue;
            std::uint64_t layouts = 1;
            for (const auto &stages : pipelines)
                layouts = saturatingMul(layouts, binomial(total - 1, int(stages.size()) - 1));
            m_count.layouts = saturatingAdd(m_count.layouts, layouts);
        }
        ++m_structures;
        if (m_count.layouts > m_countBudget && m_structures >= kMostStructuresCounted) {
            m_count.exact = false;
            m_halted = true;
        }
    }

    // Every composition of the layers over draft.stages whose stages fit with one micro-batch,
    // written into draft.layers, depth-first: nothing is stored between visits.
    template<typename Visit>
    void forEachSplit(PipelineDraft &draft, int microBatch, Visit &&visit)
    {
        const int p = int(draft.stages.size());
        if (p > m_problem.model.layers)
            return;
        draft.layers.assign(size_t(p), 1);
        compose(draft, microBatch, 0, m_problem.model.layers, visit);
    }

    template<typename Visit>
    void compose(PipelineDraft &draft, int microBatch, int j, int left, Visit &visit)
    {
        const int p = int(draft.stages.size());
        if (j == p - 1) {
            if (m_context.stageCost(draft.stages[size_t(j)], left, j, p, microBatch, 1).fits) {
                draft.layers[size_t(j)] = left;
                visit();
            }
            return;
        }
        for (int l = 1; l <= left - (p - 1 - j) && !halted(); ++l) {
            if (!m_context.stageCost(draft.stages[size_t(j)], l, j, p, microBatch, 1).fits)
                break; // more layers only need more memory
            draft.layers[size_t(j)] = l;
            compose(draft, microBatch, j + 1, left - l, visit);
        }
    }

    bool fitsWith(const PipelineDraft &draft, int microBatch, int microBatches)
    {
        const int p = int(draft.stages.size());
        for (int j = 0; j < p; ++j)
            if (!m_context
                     .stageCost(draft.stages[size_t(j)], draft.layers[size_t(j)], j, p, microBatch,
                                microBatches)
                     .fits)
                return false;
        return true;
    }

    // Largest m that still fits; memory stops growing at stageCount micro-batches in flight,
    // so fitting stageCount means any m.
    int mostMicroBatches(const PipelineDraft &draft, int microBatch)
    {
        const int p = int(draft.stages.size());
        int most = 1;
        for (int m = 2; m <= p; ++m) {
            if (!fitsWith(draft, microBatch, m))
                return most;
            most = m;
        }
        return std::numeric_limits<int>::max();
    }

    void evaluateStructure(const std::vector<std::vector<StageShape>> &pipelines)
    {
        const size_t k = pipelines.size();
        for (int b : m_microBatches) {
            const int units = m_problem.workload.train.globalBatch / b;
            if (int(k) > units)
                continue;
            std::vector<PipelineDraft> drafts(k);
            for (size_t i = 0; i < k; ++i)
                drafts[i].stages = pipelines[i];
            if (structureBoundS(drafts, b, units) >= m_bestS)
                continue;
            std::vector<PipelineShapeCost> shapes(k);
            crossProduct(drafts, shapes, 0, b, units);
        }
        ++m_structures;
        if (m_structures % 256 == 0)
            report();
    }

    // Reduction 5 for a whole structure: pipeline i needs at least the minimum over its splits
    // of T(m) for m micro-batches; the exact min-max distribution over those lower envelopes
    // bounds every layout of the structure from below (+∞ when some pipeline has no split).
    double structureBoundS(std::vector<PipelineDraft> &drafts, int microBatch, int units)
    {
        const size_t k = drafts.size();
        const int most = units - int(k) + 1;
        std::vector<std::vector<double>> envelope(k,
                                                  std::vector<double>(size_t(most) + 2, kInfinity));
        for (size_t i = 0; i < k && !halted(); ++i) {
            std::vector<double> &lowest = envelope[i];
            forEachSplit(drafts[i], microBatch, [&] {
                const PipelineShapeCost cost = m_context.pipelineCost(drafts[i], microBatch, 1);
                if (cost.sumS >= lowest[size_t(most)])
                    return; // T(m) >= sumS: this split lowers no point of the envelope
                const int fitting = std::min(most, mostMicroBatches(drafts[i], microBatch));
                for (int m = 1; m <= fitting; ++m)
                    lowest[size_t(m)] = std::min(lowest[size_t(m)], cost.timeS(m));
            });
            if (lowest[1] == kInfinity)
                return kInfinity;
        }
        std::vector<int> counts(k, 1);
        for (int left = units - int(k); left > 0; --left) {
            size_t next = 0;
            for (size_t i = 1; i < k; ++i)
                if (envelope[i][size_t(counts[i]) + 1] < envelope[next][size_t(counts[next]) + 1])
                    next = i;
            ++counts[next];
        }
        double boundS = 0;
        for (size_t i = 0; i < k; ++i)
            boundS = std::max(boundS, envelope[i][size_t(counts[i])]);
        return boundS;
    }

    // Every layer split of pipeline `level` and, for each, every split of the ones after it.
    void crossProduct(std::vector<PipelineDraft> &drafts, std::vector<PipelineShapeCost> &shapes,
                      size_t level, int microBatch, int units)
    {
        if (level == drafts.size()) {
            evaluateLayout(drafts, shapes, microBatch, units);
            return;
        }
        forEachSplit(drafts[level], microBatch, [&] {
            const PipelineShapeCost cost = m_context.pipelineCost(drafts[level], microBatch, 1);
            if (cost.sumS >= m_bestS)
                return; // T_i(m) >= T_i(1) = sumS for every m: this split cannot win
            shapes[level] = cost;
            crossProduct(drafts, shapes, level + 1, microBatch, units);
        });
    }

    void evaluateLayout(const std::vector<PipelineDraft> &drafts,
                        const std::vector<PipelineShapeCost> &shapes, int microBatch, int units)
    {
        if (++m_layouts % 65536 == 0)
            report();
        // Reduction 4: exact min-max distribution, +∞ past a pipeline's memory.
        std::vector<int> counts = balanceMicroBatches(shapes, units);
        for (size_t i = 0; i < drafts.size(); ++i) {
            const int inFlight = std::min(counts[i], int(drafts[i].stages.size()));
            if (inFlight > 1 && !fitsWith(drafts[i], microBatch, inFlight)) {
                counts = balanceWithinMemory(drafts, shapes, microBatch, units);
                break;
            }
        }
        if (counts.empty())
            return;
        double boundS = 0;
        for (size_t i = 0; i < drafts.size(); ++i)
            boundS = std::max(boundS, shapes[i].timeS(counts[i]));
        if (boundS >= m_bestS)
            return;
        Plan plan = m_context.toPlan(drafts, counts, microBatch);
        const double costS = m_costModel.objectiveS(m_problem, plan);
        if (costS < m_bestS) {
            m_bestS = costS;
            m_best = std::move(plan);
        }
    }

    // The same greedy with T_i(m) = +∞ past pipeline i's memory; empty when nothing fits.
    std::vector<int> balanceWithinMemory(const std::vector<PipelineDraft> &drafts,
                                         const std::vector<PipelineShapeCost> &shapes,
                                         int microBatch, int units)
    {
        const size_t k = drafts.size();
        std::vector<int> most(k);
        for (size_t i = 0; i < k; ++i)
            most[i] = mostMicroBatches(drafts[i], microBatch);
        std::vector<int> counts(k, 1);
        for (int left = units - int(k); left > 0; --left) {
            size_t best = k;
            double bestS = kInfinity;
            for (size_t i = 0; i < k; ++i) {
                if (counts[i] + 1 > most[i])
                    continue;
                const double t = shapes[i].timeS(counts[i] + 1);
                if (t < bestS) {
                    bestS = t;
                    best = i;
                }
            }
            if (best == k)
                return {};
            ++counts[best];
        }
        return counts;
    }

    void report() { m_reporter.report(m_structures, m_bestS, m_best ? &*m_best : nullptr); }

    const Problem &m_problem;
    const CostModel &m_costModel;
    SearchContext m_context;
    SearchReporter m_reporter;

    std::vector<bool> m_symmetric; // per machine
    std::vector<bool> m_free;      // per GPU
    std::vector<int> m_microBatches;
    int m_mostPipelines = 0; // largest G / b

    Pass m_pass = Pass::Evaluate;
    bool m_halted = false; // counting has seen enough
    Count m_count;
    std::uint64_t m_countBudget = 0;

    std::optional<Plan> m_best;
    double m_bestS = kInfinity;
    int m_structures = 0;
    long m_layouts = 0;
};

} // namespace

Result<PlanSearch> ExhaustivePlanner::planImpl(const Problem &problem, const CostModel &costModel,
                                               const PlannerOptions &options, std::stop_token stop,
                                               ProgressSink &progress) const
{
    const Topology &topology = problem.topology;
    const int machines = int(topology.cluster().machines.size());
    if (problem.workload.mode != Mode::Train)
        return Error{ErrorKind::Unsupported,
                     "the exhaustive planner enumerates training plans only; use hexgen for "
                     "inference"};
    if (topology.gpuCount() > kMaxGpus || machines > kMaxMachines)
        return Error{ErrorKind::Unsupported,
                     "the exhaustive planner handles at most " + std::to_string(kMaxGpus)
                         + " GPUs in at most " + std::to_string(kMaxMachines)
                         + " machines; cluster '" + topology.cluster().name + "' has "
                         + std::to_string(topology.gpuCount()) + " GPUs in "
                         + std::to_string(machines) + " machines (use hexiscale)"};
    const auto budget = std::uint64_t(options.parameters.exhaustive.maxPlans);

    Enumerator enumerator(problem, costModel, stop, progress);
    const Enumerator::Count count = enumerator.countLayouts(budget);
    if (enumerator.stopped())
        return Error{ErrorKind::Cancelled, "stopped while sizing the exhaustive enumeration"};
    if (count.layouts > budget) {
        const std::string size = count.layouts == kSaturated ? std::string("more than 1.8e19")
                                 : count.exact               ? std::to_string(count.layouts)
                                               : "more than " + std::to_string(count.layouts);
        return Error{ErrorKind::Unsupported,
                     "the exhaustive planner would have to enumerate " + size
                         + " plans (pipeline structure x layer split x micro-batch size) for "
                           "model '"
                         + problem.model.name + "' (" + std::to_string(problem.model.layers)
                         + " layers) on cluster '" + topology.cluster().name + "' ("
                         + std::to_string(topology.gpuCount())
                         + " GPUs), over its budget max_plans = " + std::to_string(budget)
                         + "; use a model with fewer layers or a smaller cluster, or raise the "
                           "knob max_plans (or use hexiscale)"};
    }

    NullProgress quiet;
    PlannerOptions seedOptions;
    seedOptions.seed = options.seed;
    if (options.parameters.exhaustive.heuristicSeed)
        if (Result<PlanSearch> heuristic
            = HexiScalePlanner().plan(problem, costModel, seedOptions, stop, quiet))
            enumerator.seed(std::move(heuristic.value().plan));
    enumerator.run();
    if (!enumerator.found())
        return Error{enumerator.stopped() ? ErrorKind::Cancelled : ErrorKind::NoPlanFits,
                     enumerator.stopped()
                         ? std::string("stopped before any plan that fits was found")
                         : "no plan for model '" + problem.model.name
                               + "' fits in the memory of "
                                 "cluster '"
                               + topology.cluster().name + "'"};
    PlanSearch search;
    search.plan = enumerator.bestPlan();
    search.plan.planner = "exhaustive";
    search.trace = enumerator.trace();
    return search;
}

} // namespace hetplan
