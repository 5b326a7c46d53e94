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
//     with non-increasing signatures; relabelling (1) is applied after sorting them.
//  3. Memory: a layer split is dropped when a stage does not fit even with one micro-batch
//     (memory only grows with the micro-batches in flight).
//  4. Micro-batches: for fixed stages and layers the cost model's iteration time is
//     max_i T_i(m_i) + DP, with DP independent of the m_i and T_i(m) = Σ_j w_ij + (m − 1)·
//     max_j w_ij (HexiScale eq. 9, +∞ when pipeline i does not fit with m micro-batches),
//     nondecreasing in m. Handing out micro-batches one at a time to the pipeline whose time
//     after it is smallest minimises max_i T_i exactly, so only that distribution is evaluated.
//  5. Bound: max_i T_i is a lower bound of the iteration time, so layouts whose bound is not
//     below the best found are skipped without a full evaluation (objectiveS).
// The per-stage times come from estimateStage/hopS, the final costs from objectiveS.
#include "core/planners/exhaustive.h"

#include "core/cost/cost_model.h"
#include "core/planners/hexiscale/batch_balance.h"
#include "core/planners/hexiscale/hexiscale_planner.h"
#include "core/planners/hexiscale/search_context.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <optional>

namespace hetplan {
namespace {

using namespace hexiscale;

constexpr double kInfinity = std::numeric_limits<double>::infinity();

struct LayerSplit
{
    std::vector<int> layers;
    PipelineShapeCost cost;  // per micro-batch shape (sumS, bottleneckS)
    int mostMicroBatches = 0; // largest m that still fits (stageCount means any)
};

class Enumerator
{
public:
    Enumerator(const Problem &problem, const CostModel &costModel, std::stop_token stop,
               ProgressSink &progress)
        : m_problem(problem)
        , m_costModel(costModel)
        , m_context(problem, costModel)
        , m_stop(std::move(stop))
        , m_progress(progress)
        , m_started(std::chrono::steady_clock::now())
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
                && std::find(m_microBatches.begin(), m_microBatches.end(), b) == m_microBatches.end())
                m_microBatches.push_back(b);
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
        std::vector<std::vector<StageShape>> pipelines;
        addPipeline(pipelines);
    }

    bool found() const { return m_best.has_value(); }
    const Plan &bestPlan() const { return *m_best; }
    double bestS() const { return m_bestS; }
    std::vector<TracePoint> trace() const
    {
        std::vector<TracePoint> result = m_trace;
        const double elapsedS =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - m_started).count();
        result.push_back({m_structures, elapsedS, m_bestS});
        return result;
    }
    bool stopped() const { return m_stop.stop_requested(); }

private:
    using Signature = std::vector<long>;

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

    // Either the set of pipelines is complete (evaluate it), or one more pipeline starts.
    void addPipeline(std::vector<std::vector<StageShape>> &pipelines)
    {
        if (m_stop.stop_requested())
            return;
        if (!pipelines.empty())
            evaluateStructure(pipelines);
        std::vector<StageShape> stages;
        extendPipeline(pipelines, stages);
    }

    void extendPipeline(std::vector<std::vector<StageShape>> &pipelines,
                        std::vector<StageShape> &stages)
    {
        if (m_stop.stop_requested())
            return;
        if (!stages.empty()) {
            // Non-increasing signatures: the set of pipelines is generated once per order.
            if (pipelines.empty() || signatureOf(stages) <= signatureOf(pipelines.back())) {
                pipelines.push_back(stages);
                addPipeline(pipelines);
                pipelines.pop_back();
            }
        }
        if (int(stages.size()) == m_problem.model.layers)
            return;
        forEachStage([&](StageShape stage) {
            for (int g : stage.gpus)
                m_free[size_t(g)] = false;
            stages.push_back(std::move(stage));
            extendPipeline(pipelines, stages);
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
        for (int machine = 0; machine < machines; ++machine) {
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

    // Every composition of the layers over the stages that fits with one micro-batch, sorted
    // by the time of one micro-batch (so the cross product can stop early).
    const std::vector<LayerSplit> &splitsOf(const std::vector<StageShape> &stages, int microBatch)
    {
        std::vector<int> key{microBatch};
        for (const StageShape &s : stages)
            key.push_back(s.id);
        auto [it, inserted] = m_splits.try_emplace(key);
        if (!inserted)
            return it->second;
        const int p = int(stages.size());
        const int total = m_problem.model.layers;
        PipelineDraft draft;
        draft.stages = stages;
        draft.layers.assign(size_t(p), 1);
        const auto compose = [&](auto &&self, int j, int left) -> void {
            if (j == p - 1) {
                draft.layers[size_t(j)] = left;
                if (!m_context.stageCost(stages[size_t(j)], left, j, p, microBatch, 1).fits)
                    return;
                LayerSplit split;
                split.layers = draft.layers;
                split.cost = m_context.pipelineCost(draft, microBatch, 1);
                split.mostMicroBatches = 1;
                for (int m = 2; m <= p; ++m) {
                    if (!m_context.pipelineCost(draft, microBatch, m).fits)
                        break;
                    split.mostMicroBatches = m;
                }
                if (split.mostMicroBatches == p)
                    split.mostMicroBatches = std::numeric_limits<int>::max();
                it->second.push_back(std::move(split));
                return;
            }
            for (int l = 1; l <= left - (p - 1 - j); ++l) {
                if (!m_context.stageCost(stages[size_t(j)], l, j, p, microBatch, 1).fits)
                    break; // more layers only need more memory
                draft.layers[size_t(j)] = l;
                self(self, j + 1, left - l);
            }
        };
        if (p <= total)
            compose(compose, 0, total);
        std::sort(it->second.begin(), it->second.end(),
                  [](const LayerSplit &a, const LayerSplit &b) { return a.cost.sumS < b.cost.sumS; });
        return it->second;
    }

    void evaluateStructure(const std::vector<std::vector<StageShape>> &pipelines)
    {
        for (int b : m_microBatches) {
            const int units = m_problem.workload.train.globalBatch / b;
            if (int(pipelines.size()) > units)
                continue;
            std::vector<const std::vector<LayerSplit> *> options;
            for (const auto &stages : pipelines) {
                options.push_back(&splitsOf(stages, b));
                if (options.back()->empty())
                    break;
            }
            if (options.size() < pipelines.size() || options.back()->empty())
                continue;
            if (structureBoundS(options, units) >= m_bestS)
                continue;
            std::vector<const LayerSplit *> chosen;
            crossProduct(pipelines, options, chosen, b, units);
        }
        ++m_structures;
        if (m_structures % 256 == 0)
            report();
    }

    // Reduction 5 for a whole structure: pipeline i needs at least
    // min over its splits of T(m) for m micro-batches; the exact min-max distribution over
    // those lower envelopes bounds every layout of the structure from below.
    double structureBoundS(const std::vector<const std::vector<LayerSplit> *> &options, int units)
    {
        const size_t k = options.size();
        const int most = units - int(k) + 1;
        std::vector<std::vector<double>> envelope(k, std::vector<double>(size_t(most) + 1, kInfinity));
        for (size_t i = 0; i < k; ++i)
            for (const LayerSplit &split : *options[i])
                for (int m = 1; m <= std::min(most, split.mostMicroBatches); ++m)
                    envelope[i][size_t(m)] = std::min(envelope[i][size_t(m)], split.cost.timeS(m));
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

    void crossProduct(const std::vector<std::vector<StageShape>> &pipelines,
                      const std::vector<const std::vector<LayerSplit> *> &options,
                      std::vector<const LayerSplit *> &chosen, int microBatch, int units)
    {
        if (m_stop.stop_requested())
            return;
        if (chosen.size() == pipelines.size()) {
            evaluateLayout(pipelines, chosen, microBatch, units);
            return;
        }
        for (const LayerSplit &split : *options[chosen.size()]) {
            if (split.cost.sumS >= m_bestS)
                break; // T_i(m) >= T_i(1) = sumS for every m: nothing below can win
            chosen.push_back(&split);
            crossProduct(pipelines, options, chosen, microBatch, units);
            chosen.pop_back();
        }
    }

    void evaluateLayout(const std::vector<std::vector<StageShape>> &pipelines,
                        const std::vector<const LayerSplit *> &chosen, int microBatch, int units)
    {
        // Reduction 4: exact min-max distribution, +∞ past a pipeline's memory.
        std::vector<PipelineShapeCost> shapes;
        for (const LayerSplit *split : chosen)
            shapes.push_back(split->cost);
        std::vector<int> counts = balanceMicroBatches(shapes, units);
        double boundS = 0;
        for (size_t i = 0; i < chosen.size(); ++i) {
            if (counts[i] > chosen[i]->mostMicroBatches) {
                counts = balanceWithinMemory(chosen, units);
                break;
            }
        }
        if (counts.empty())
            return;
        for (size_t i = 0; i < chosen.size(); ++i)
            boundS = std::max(boundS, chosen[i]->cost.timeS(counts[i]));
        if (boundS >= m_bestS)
            return;
        std::vector<PipelineDraft> drafts;
        for (size_t i = 0; i < pipelines.size(); ++i)
            drafts.push_back({pipelines[i], chosen[i]->layers});
        Plan plan = m_context.toPlan(drafts, counts, microBatch);
        const double costS = m_costModel.objectiveS(m_problem, plan);
        ++m_evaluated;
        if (costS < m_bestS) {
            m_bestS = costS;
            m_best = std::move(plan);
        }
    }

    // The same greedy with T_i(m) = +∞ past pipeline i's memory; empty when nothing fits.
    std::vector<int> balanceWithinMemory(const std::vector<const LayerSplit *> &chosen, int units)
    {
        std::vector<int> counts(chosen.size(), 1);
        for (int left = units - int(chosen.size()); left > 0; --left) {
            size_t best = chosen.size();
            double bestS = kInfinity;
            for (size_t i = 0; i < chosen.size(); ++i) {
                if (counts[i] + 1 > chosen[i]->mostMicroBatches)
                    continue;
                const double t = chosen[i]->cost.timeS(counts[i] + 1);
                if (t < bestS) {
                    bestS = t;
                    best = i;
                }
            }
            if (best == chosen.size())
                return {};
            ++counts[best];
        }
        return counts;
    }

    void report()
    {
        const double elapsedS =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - m_started).count();
        m_trace.push_back({m_structures, elapsedS, m_bestS});
        Progress progress;
        progress.iteration = m_structures;
        progress.elapsedS = elapsedS;
        progress.bestCostS = m_bestS;
        progress.bestPlan = m_best ? &*m_best : nullptr;
        m_progress.report(progress);
    }

    const Problem &m_problem;
    const CostModel &m_costModel;
    SearchContext m_context;
    std::stop_token m_stop;
    ProgressSink &m_progress;
    std::chrono::steady_clock::time_point m_started;

    std::vector<bool> m_symmetric; // per machine
    std::vector<bool> m_free;      // per GPU
    std::vector<int> m_microBatches;
    std::map<std::vector<int>, std::vector<LayerSplit>> m_splits;

    std::optional<Plan> m_best;
    double m_bestS = kInfinity;
    int m_structures = 0;
    long m_evaluated = 0;
    std::vector<TracePoint> m_trace;
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
    Enumerator enumerator(problem, costModel, stop, progress);
    NullProgress quiet;
    PlannerOptions seedOptions;
    seedOptions.seed = options.seed;
    const auto knob = options.knobs.find("heuristic_seed");
    if (knob == options.knobs.end() || knob->second != 0)
        if (Result<PlanSearch> heuristic = HexiScalePlanner().plan(problem, costModel, seedOptions,
                                                                   stop, quiet))
            enumerator.seed(std::move(heuristic.value().plan));
    enumerator.run();
    if (!enumerator.found())
        return Error{enumerator.stopped() ? ErrorKind::Cancelled : ErrorKind::NoPlanFits,
                     enumerator.stopped()
                         ? std::string("stopped before any plan that fits was found")
                         : "no plan for model '" + problem.model.name + "' fits in the memory of "
                               "cluster '" + topology.cluster().name + "'"};
    PlanSearch search;
    search.plan = enumerator.bestPlan();
    search.plan.planner = "exhaustive";
    search.trace = enumerator.trace();
    return search;
}

} // namespace hetplan
