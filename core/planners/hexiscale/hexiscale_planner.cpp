#include "core/planners/hexiscale/hexiscale_planner.h"

#include "core/base/infinity.h"
#include "core/cost/cost_model.h"
#include "core/cost/validator.h"
#include "core/planners/closest_fit.h"
#include "core/planners/hexiscale/batch_balance.h"
#include "core/planners/hexiscale/gpu_groups.h"
#include "core/planners/hexiscale/idle_gpus.h"
#include "core/planners/hexiscale/layer_assignment.h"
#include "core/planners/hexiscale/local_search.h"
#include "core/planners/hexiscale/pipeline_builder.h"
#include "core/planners/hexiscale/search_context.h"
#include "core/planners/holmes/holmes_planner.h"
#include "core/planners/megatron.h"
#include "core/planners/search_reporter.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>

namespace hetplan {
namespace {

using namespace hexiscale;

// Layouts polished by local search at the end (more on small clusters, where it is cheap).
constexpr size_t kPolished = 4;
constexpr size_t kPolishedSmall = 16;
constexpr int kSmallCluster = 16;
// The largest cluster Holmes's plan is a seed for (docs/planners.md, "The search").
constexpr int kHolmesSeedGpus = 2048;

// How many parts a group is split into in phase 2 (§4.4 varies k_i).
enum class PartCount { Machines, MachinesPlusOne, TwiceMachines, One, Random };

struct Choice
{
    int pipelines = 1;
    CutOption cut = CutOption::MinimiseBetweenGroups;
    PartCount parts = PartCount::Machines;
    TpPolicy policy = TpPolicy::LocallyBest;
    int ufactor = 200;
    int microBatch = 1;
};

struct Candidate
{
    Plan plan;
    Evaluation evaluation;
    double costS = kInfinity;
};

class Search
{
public:
    Search(const Problem &problem, const CostModel &costModel, const PlannerOptions &options,
           std::stop_token stop, ProgressSink &progress)
        : m_problem(problem)
        , m_costModel(costModel)
        , m_options(options)
        , m_reporter(std::move(stop), progress)
        , m_context(problem, costModel)
        , m_random(options.seed)
    {
        m_context.watch(m_reporter);
        for (int g = 0; g < problem.topology.gpuCount(); ++g)
            m_allGpus.push_back(g);
        const TrainWorkload &train = problem.workload.train;
        for (int b : train.microBatchSizes)
            if (b >= 1 && train.globalBatch % b == 0
                && std::find(m_microBatches.begin(), m_microBatches.end(), b)
                       == m_microBatches.end())
                m_microBatches.push_back(b);
        const HexiScaleParameters &settings = options.parameters.hexiscale;
        m_iterations = options.maxIterations > 0 ? options.maxIterations : settings.iterations;
        m_ufactor = int(std::lround((settings.balance - 1) * 1000));
        m_secondaryUfactor = int(std::lround((settings.secondaryBalance - 1) * 1000));
        m_tau = settings.tau;
        m_maxPipelines = settings.maxPipelines;
    }

    Result<PlanSearch> run()
    {
        if (m_microBatches.empty())
            return badInput("workload: no micro-batch size candidate divides global_batch "
                            + std::to_string(m_problem.workload.train.globalBatch));
        considerWarmStart();
        if (m_options.parameters.hexiscale.megatronSeed)
            considerBaseline(MegatronPlanner());

        const std::vector<int> ladder = pipelineLadder();
        for (int iteration = 0; iteration < m_iterations && !shouldStop(); ++iteration) {
            const Choice choice = iteration < int(ladder.size())
                                      ? ladderChoice(ladder[size_t(iteration)])
                                      : exploreChoice(ladder);
            tryChoice(choice);
            // Small clusters are cheap to plan: both cut options and every TP policy.
            if (m_problem.topology.gpuCount() <= kSmallCluster)
                for (CutOption cut :
                     {CutOption::MinimiseBetweenGroups, CutOption::MaximiseBetweenGroups})
                    for (TpPolicy policy :
                         {TpPolicy::LocallyBest, TpPolicy::Widest, TpPolicy::Narrowest})
                        if (policy != choice.policy || cut != choice.cut) {
                            Choice variant = choice;
                            variant.cut = cut;
                            variant.policy = policy;
                            tryChoice(variant);
                        }
            if (iteration + 1 == int(ladder.size()))
                tryMachineAlignedLayouts();
            report(iteration + 1);
        }
        // Holmes's plan joins at the end, so that its layout, far from what the partitioning
        // builds, does not steer the search (the best K, the cut option's moving average).
        // Its planning time grows faster than the search's: beyond kHolmesSeedGpus it would
        // cost more than the whole search.
        if (m_options.parameters.hexiscale.holmesSeed && !shouldStop()
            && m_problem.topology.gpuCount() <= kHolmesSeedGpus)
            considerBaseline(HolmesPlanner());
        polishBest();
        useIdleGpus();
        if (!m_reporter.trace().empty())
            report(m_reporter.trace().back().iteration + 1);

        if (!m_best && shouldStop())
            return Error{ErrorKind::Cancelled, "stopped before any plan that fits was found"};
        if (!m_best)
            return Error{ErrorKind::NoPlanFits, noFitMessage(),
                         m_closest.empty() ? m_baselineNoFit.noFit
                                           : m_closest.attachment(m_problem)};
        PlanSearch search;
        search.plan = m_best->plan;
        search.evaluation = m_best->evaluation;
        search.trace = m_reporter.takeTrace();
        search.stoppedEarly = m_reporter.stopRequested();
        search.idleGpus = std::move(m_idle);
        return search;
    }

private:
    std::string noFitMessage() const
    {
        std::string text = "no HexiScale plan for model '" + m_problem.model.name
                           + "' fits in the memory of cluster '" + m_problem.topology.cluster().name
                           + "'";
        if (!m_closest.empty())
            text += ": " + m_closest.describe(m_problem);
        else if (!m_baselineNoFit.message.empty()) // no GPU group could hold the model at all
            text += "; " + m_baselineNoFit.message;
        return text
               + "; add GPUs, lower the micro-batch size or the sequence length, or shard "
                 "the optimizer state";
    }

    bool shouldStop() const { return m_reporter.shouldStop(); }

    void report(int iteration)
    {
        m_reporter.report(iteration, m_best ? m_best->costS : kInfinity,
                          m_best ? &m_best->plan : nullptr);
    }

    // Evaluates a plan, keeps it when it is the best so far; returns its objective.
    double offer(Plan plan)
    {
        Candidate candidate;
        candidate.evaluation = m_costModel.evaluate(m_problem, plan);
        candidate.costS = candidate.evaluation.objectiveS();
        if (!m_best && m_closest.closer(candidate.evaluation))
            m_closest.record(candidate.evaluation, describePlanShape(plan));
        // §4.4: the simulated DP and PP communication feed the cut option's moving average.
        if (candidate.costS < kInfinity) {
            constexpr double kWeight = 0.3;
            m_averageDpS += kWeight * (candidate.evaluation.breakdown.dpCommS - m_averageDpS);
            m_averagePpS += kWeight * (candidate.evaluation.breakdown.ppCommS - m_averagePpS);
        }
        const double costS = candidate.costS;
        if (costS >= (m_best ? m_best->costS : kInfinity))
            return costS;
        plan.planner = "hexiscale";
        candidate.plan = std::move(plan);
        candidate.plan.estimate = candidate.evaluation;
        m_best = std::move(candidate);
        return costS;
    }

    double offerLayout(const Layout &layout)
    {
        const double costS
            = offer(m_context.toPlan(layout.drafts, layout.microBatches, layout.microBatch));
        remember(layout, costS);
        return costS;
    }

    // The few best distinct layouts, for polishing at the end.
    void remember(const Layout &layout, double costS)
    {
        if (!(costS < kInfinity))
            return;
        for (const auto &[knownS, known] : m_top)
            if (knownS == costS)
                return;
        m_top.emplace_back(costS, layout);
        std::stable_sort(m_top.begin(), m_top.end(),
                         [](const auto &a, const auto &b) { return a.first < b.first; });
        if (m_top.size()
            > (m_problem.topology.gpuCount() <= kSmallCluster ? kPolishedSmall : kPolished))
            m_top.pop_back();
    }

    // A plan from outside (warm start, Megatron) as a layout, when it is one: dp = 1 and one
    // micro-batch size.
    std::optional<Layout> layoutOf(const Plan &plan)
    {
        Layout layout;
        layout.microBatch = plan.pipelines.empty() ? 1 : plan.pipelines.front().microBatch;
        for (const Pipeline &pipeline : plan.pipelines) {
            if (pipeline.microBatch != layout.microBatch)
                return std::nullopt;
            PipelineDraft draft;
            for (const Stage &stage : pipeline.stages) {
                if (stage.dp != 1)
                    return std::nullopt;
                draft.stages.push_back(m_context.makeStage(stage.gpus));
                draft.layers.push_back(stage.layerCount());
            }
            layout.drafts.push_back(std::move(draft));
            layout.microBatches.push_back(pipeline.microBatches);
        }
        return layout;
    }

    // A layout priced for polish and the idle-GPU additions. Most are worse than the best plan:
    // the objective alone says so, and only a better one is evaluated in full.
    double layoutCostS(const Layout &layout)
    {
        Plan plan = m_context.toPlan(layout.drafts, layout.microBatches, layout.microBatch);
        const double quickS = m_costModel.objectiveS(m_problem, plan);
        if (m_best && !(quickS < m_best->costS))
            return quickS;
        return offer(std::move(plan));
    }

    void polishBest()
    {
        const int setting = m_options.parameters.hexiscale.polish;
        const int evaluations
            = setting >= 0
                  ? setting
                  : std::clamp(20000 / std::max(1, m_problem.topology.gpuCount()), 40, 1500);
        const std::function<double(const Layout &)> costS
            = [this](const Layout &layout) { return layoutCostS(layout); };
        const auto top = m_top;
        for (const auto &[knownS, layout] : top) {
            if (shouldStop())
                return;
            polish(m_context, layout, evaluations, costS);
        }
    }

    // The GPUs the best plan leaves idle (docs/planners.md, "Idle GPUs"): while adding one
    // machine's idle GPUs makes it faster, the best addition is taken; then what adding each
    // class of idle machines would cost is what the plan reports.
    void useIdleGpus()
    {
        constexpr int kMostAdditions = 8;
        const std::function<double(const Layout &)> costS
            = [this](const Layout &layout) { return layoutCostS(layout); };
        for (int round = 0; m_best && !shouldStop(); ++round) {
            const std::optional<Layout> layout = layoutOf(m_best->plan);
            if (!layout)
                return;
            const double beforeS = m_best->costS;
            m_idle = idleGpus(m_context, *layout, costS);
            // An addition that helped is now the best plan (layoutCostS offered it).
            if (!(m_best->costS < beforeS) || round == kMostAdditions)
                return;
        }
    }

    void considerWarmStart()
    {
        if (!m_options.warmStart)
            return;
        // A warm start from another cluster or model does not apply; it is ignored, not an error.
        if (!validatePlan(m_problem, *m_options.warmStart, &m_costModel).empty())
            return;
        const double costS = offer(*m_options.warmStart);
        if (const std::optional<Layout> layout = layoutOf(*m_options.warmStart))
            remember(*layout, costS);
    }

    // Another planner's plan as a seed (docs/planners.md, "The search"): the result is never
    // worse than it, and polish starts from it too.
    void considerBaseline(const Planner &planner)
    {
        NullProgress quiet;
        PlannerOptions options;
        options.seed = m_options.seed;
        // The baseline spends from the same time limit; a tiny remainder still lets it stop.
        if (m_options.timeLimitS > 0)
            options.timeLimitS = std::max(1e-3, m_options.timeLimitS - m_reporter.elapsedS());
        Result<PlanSearch> baseline
            = planner.plan(m_problem, m_costModel, options, m_reporter.stopToken(), quiet);
        if (!baseline) {
            // Why Megatron, the yardstick, found nothing explains a search that finds nothing.
            if (baseline.error().kind == ErrorKind::NoPlanFits
                && planner.kind() == PlannerKind::Megatron)
                m_baselineNoFit = baseline.error();
            return;
        }
        const double costS = offer(baseline.value().plan);
        if (const std::optional<Layout> layout = layoutOf(baseline.value().plan))
            remember(*layout, costS);
    }

    // K values swept first (§4.4 enumerates D_dp across iterations).
    std::vector<int> pipelineLadder() const
    {
        const int units = m_problem.workload.train.globalBatch / m_microBatches.front();
        const int most = std::min({m_problem.topology.gpuCount(), units, m_maxPipelines});
        std::set<int> ladder;
        for (int k : {1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 96, 128})
            if (k <= most)
                ladder.insert(k);
        const int machines = int(m_problem.topology.cluster().machines.size());
        if (machines <= most)
            ladder.insert(machines);
        ladder.insert(most);
        return {ladder.begin(), ladder.end()};
    }

    CutOption adaptiveCut()
    {
        // Give the wide links to whichever communication has cost more on average (§4.4):
        // DP heavier → maximise the cut (DP runs between groups), else minimise it.
        CutOption cut = m_averageDpS > m_averagePpS ? CutOption::MaximiseBetweenGroups
                                                    : CutOption::MinimiseBetweenGroups;
        if (std::uniform_real_distribution<double>(0, 1)(m_random) < 0.2)
            cut = cut == CutOption::MinimiseBetweenGroups ? CutOption::MaximiseBetweenGroups
                                                          : CutOption::MinimiseBetweenGroups;
        return cut;
    }

    Choice ladderChoice(int pipelines)
    {
        Choice choice;
        choice.pipelines = pipelines;
        choice.cut = adaptiveCut();
        choice.ufactor = m_ufactor;
        choice.microBatch = m_microBatches.front();
        return choice;
    }

    // Once the ladder has found the best pipeline count: pipelines striped across machines
    // (each takes the same GPUs of every box, so DP stays inside machines) with one stage per
    // machine part, under each TP policy. Random exploration reaches this uniform layout
    // only by chance on large clusters (on the 64-GPU synthetic bench it is the best plan).
    void tryMachineAlignedLayouts()
    {
        if (!m_best)
            return;
        Choice choice = ladderChoice(int(m_best->plan.pipelines.size()));
        choice.cut = CutOption::MaximiseBetweenGroups;
        choice.parts = PartCount::Machines;
        for (TpPolicy policy : {TpPolicy::Widest, TpPolicy::LocallyBest}) {
            choice.policy = policy;
            tryChoice(choice);
            // The builder's METIS split need not cut a striped pipeline at machine boundaries;
            // here each machine's share of the pipeline is one part, hence one stage block.
            if (choice.pipelines > 1)
                tryGroups(choice,
                          sliceMachines(m_problem.topology, m_allGpus, choice.pipelines,
                                        sliceWidth(choice.pipelines)),
                          PartSource::Machines);
        }
    }

    // The largest machine's share of each of `pipelines` striped pipelines.
    int sliceWidth(int pipelines) const
    {
        int widest = 1;
        for (const Machine &machine : m_problem.topology.cluster().machines)
            widest = std::max(widest, machine.count);
        return std::max(1, widest / pipelines);
    }

    Choice exploreChoice(const std::vector<int> &ladder)
    {
        std::uniform_real_distribution<double> unit(0, 1);
        Choice choice;
        const int bestK = m_best ? int(m_best->plan.pipelines.size()) : ladder.back();
        if (unit(m_random) < 0.3) {
            choice.pipelines
                = ladder[std::uniform_int_distribution<size_t>(0, ladder.size() - 1)(m_random)];
        } else {
            const int step = std::uniform_int_distribution<int>(-2, 2)(m_random);
            choice.pipelines = std::clamp(bestK + step, 1, ladder.back());
        }
        choice.cut = adaptiveCut();
        constexpr PartCount kParts[]
            = {PartCount::Machines, PartCount::MachinesPlusOne, PartCount::TwiceMachines,
               PartCount::One, PartCount::Random};
        choice.parts = kParts[std::uniform_int_distribution<int>(0, 4)(m_random)];
        const double policy = unit(m_random);
        choice.policy = policy < 0.6 ? TpPolicy::LocallyBest
                                     : (policy < 0.8 ? TpPolicy::Widest : TpPolicy::Narrowest);
        constexpr int kUfactors[] = {0, 50, 500, 1000};
        const int u = std::uniform_int_distribution<int>(0, 4)(m_random);
        choice.ufactor = u == 4 ? m_ufactor : kUfactors[u];
        choice.microBatch = m_microBatches[std::uniform_int_distribution<size_t>(
            0, m_microBatches.size() - 1)(m_random)];
        return choice;
    }

    int partsFor(const std::vector<int> &group, PartCount mode)
    {
        std::set<int> machines;
        for (int g : group)
            machines.insert(m_problem.topology.gpu(g).machine);
        const int n = int(group.size());
        const int m = int(machines.size());
        int parts = m;
        switch (mode) {
        case PartCount::Machines:
            break;
        case PartCount::MachinesPlusOne:
            parts = m + 1;
            break;
        case PartCount::TwiceMachines:
            parts = 2 * m;
            break;
        case PartCount::One:
            parts = 1;
            break;
        case PartCount::Random:
            parts = std::uniform_int_distribution<int>(1, n)(m_random);
            break;
        }
        return std::clamp(parts, 1, std::min(n, m_problem.model.layers));
    }

    std::vector<PipelineShapeCost> shapes(const std::vector<PipelineDraft> &drafts, int microBatch,
                                          const std::vector<int> &counts)
    {
        std::vector<PipelineShapeCost> result;
        for (size_t p = 0; p < drafts.size(); ++p)
            result.push_back(m_context.pipelineCost(drafts[p], microBatch, counts[p]));
        return result;
    }

    void tryChoice(const Choice &choice)
    {
        Result<std::vector<std::vector<int>>> groups
            = m_context.split(m_allGpus, choice.pipelines, choice.cut, choice.ufactor, m_random());
        if (groups)
            tryGroups(choice, groups.value());
        if (choice.cut == CutOption::MaximiseBetweenGroups && choice.pipelines > 1)
            tryGroups(choice, stripeGpus(m_problem.topology, m_allGpus, choice.pipelines));
    }

    // The parts of one group for the pipeline builder: found by METIS, or one per machine.
    enum class PartSource { Metis, Machines };

    std::vector<std::vector<int>> machineParts(const std::vector<int> &group) const
    {
        std::map<int, std::vector<int>> byMachine;
        for (int g : group)
            byMachine[m_problem.topology.gpu(g).machine].push_back(g);
        std::vector<std::vector<int>> parts;
        parts.reserve(byMachine.size());
        for (auto &[machine, gpus] : byMachine)
            parts.push_back(std::move(gpus));
        return parts;
    }

    void tryGroups(const Choice &choice, const std::vector<std::vector<int>> &groups,
                   PartSource source = PartSource::Metis)
    {
        const int units = m_problem.workload.train.globalBatch / choice.microBatch;
        const int expected = std::max(1, units / int(groups.size()));
        std::vector<PipelineDraft> drafts;
        for (const std::vector<int> &group : groups) {
            if (shouldStop())
                return;
            PipelineBuildOptions build;
            build.parts = partsFor(group, choice.parts);
            build.policy = choice.policy;
            build.tau = m_tau;
            build.microBatch = choice.microBatch;
            build.microBatches = expected;
            build.ufactor = m_secondaryUfactor;
            build.seed = m_random();
            // A group that cannot hold the model stays idle.
            std::optional<PipelineDraft> draft
                = source == PartSource::Metis
                      ? buildPipeline(m_context, group, build)
                      : buildPipelineFromParts(m_context, machineParts(group), build);
            if (draft)
                drafts.push_back(std::move(*draft));
        }
        if (drafts.empty())
            return;
        // More pipelines than micro-batches: the slowest stay idle.
        std::vector<int> counts(drafts.size(), expected);
        while (int(drafts.size()) > units) {
            const auto costs = shapes(drafts, choice.microBatch, counts);
            size_t slowest = 0;
            for (size_t p = 1; p < costs.size(); ++p)
                if (costs[p].timeS(1) > costs[slowest].timeS(1))
                    slowest = p;
            drafts.erase(drafts.begin() + long(slowest));
            counts.pop_back();
        }
        counts = balanceMicroBatches(shapes(drafts, choice.microBatch, counts), units);
        // Eq. 9 weighs the bottleneck by each pipeline's own micro-batch count: re-assign the
        // layers for it once, then balance again.
        for (size_t p = 0; p < drafts.size(); ++p) {
            PipelineDraft again = drafts[p];
            if (optimiseLayers(m_context, again, choice.microBatch, counts[p]))
                drafts[p] = std::move(again);
        }
        counts = balanceMicroBatches(shapes(drafts, choice.microBatch, counts), units);
        offerWithIdlePipelines(std::move(drafts), choice.microBatch, units);
    }

    // §4.4's plans may leave GPUs idle: while it helps, one pipeline is dropped and the
    // micro-batches rebalanced over the rest. Every pipeline is tried while there are few, the
    // one with the lowest throughput when there are many.
    void offerWithIdlePipelines(std::vector<PipelineDraft> drafts, int microBatch, int units)
    {
        constexpr size_t kTryEveryPipeline = 16;
        std::vector<int> counts(drafts.size(), std::max(1, units / int(drafts.size())));
        counts = balanceMicroBatches(shapes(drafts, microBatch, counts), units);
        double currentS = offerLayout({drafts, counts, microBatch});
        while (drafts.size() > 1 && !shouldStop()) {
            const auto costs = shapes(drafts, microBatch, counts);
            std::vector<size_t> tries;
            if (drafts.size() <= kTryEveryPipeline) {
                for (size_t p = 0; p < drafts.size(); ++p)
                    tries.push_back(p);
            } else {
                size_t weakest = 0;
                double weakestRate = kInfinity;
                for (size_t p = 0; p < costs.size(); ++p) {
                    const double rate = counts[p] / costs[p].timeS(counts[p]);
                    if (rate < weakestRate) {
                        weakestRate = rate;
                        weakest = p;
                    }
                }
                tries.push_back(weakest);
            }
            double bestS = currentS;
            std::optional<std::pair<std::vector<PipelineDraft>, std::vector<int>>> best;
            for (size_t drop : tries) {
                std::vector<PipelineDraft> fewer = drafts;
                fewer.erase(fewer.begin() + long(drop));
                std::vector<int> fewerCounts(fewer.size(), std::max(1, units / int(fewer.size())));
                fewerCounts = balanceMicroBatches(shapes(fewer, microBatch, fewerCounts), units);
                const double fewerS = offerLayout({fewer, fewerCounts, microBatch});
                if (fewerS < bestS) {
                    bestS = fewerS;
                    best.emplace(std::move(fewer), std::move(fewerCounts));
                }
            }
            if (!best)
                return;
            drafts = std::move(best->first);
            counts = std::move(best->second);
            currentS = bestS;
        }
    }

    const Problem &m_problem;
    const CostModel &m_costModel;
    const PlannerOptions &m_options;
    SearchReporter m_reporter;
    SearchContext m_context;
    std::mt19937_64 m_random;

    std::vector<int> m_allGpus;
    std::vector<int> m_microBatches;
    int m_iterations = 50;
    int m_ufactor = 200;
    int m_secondaryUfactor = 1000;
    int m_tau = 2;
    int m_maxPipelines = 64;

    std::optional<Candidate> m_best;
    ClosestFit m_closest;  // while nothing fits: for the "no plan fits" message
    Error m_baselineNoFit; // why Megatron found nothing (empty message: it found a plan)
    std::vector<std::pair<double, Layout>> m_top;
    std::vector<IdleGpus> m_idle; // of the best plan, once the search is over
    double m_averageDpS = 0;
    double m_averagePpS = 0;
};

} // namespace

Result<PlanSearch> HexiScalePlanner::planImpl(const Problem &problem, const CostModel &costModel,
                                              const PlannerOptions &options, std::stop_token stop,
                                              ProgressSink &progress) const
{
    return Search(problem, costModel, options, std::move(stop), progress).run();
}

} // namespace hetplan
