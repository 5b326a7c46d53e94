// Budget: the default planner on 16,384 GPUs (2048 machines, the format's limit) under 30 s on
// 2 cores, and always within the time limit. Plans the generated fleet (fleet.h) at 1k, 4k and
// 16k GPUs with the default planner and cost model, prints where the time goes, the plan and
// the search trace; then a 5 s time limit and a stop request at 16k, with how late each returned.
#include "core/cost/cost_model.h"
#include "core/io/loaders.h"
#include "core/planners/planner.h"
#include "tests/bench/bench_util.h"
#include "tests/bench/fleet.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <thread>

namespace hetplan::bench {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

Problem fleetProblem(int machines, double *topologyS)
{
    const auto start = Clock::now();
    Problem problem = problemOf(benchFleet(machines), "llama2-70b", fleetWorkload());
    *topologyS = secondsSince(start);
    return problem;
}

// The trace where the best cost changed: when the search found what.
void printTrace(const std::vector<TracePoint> &trace)
{
    std::printf("    trace (s since start → best iteration s):");
    double shown = -1;
    int printed = 0;
    for (const TracePoint &point : trace) {
        if (point.bestCostS == shown)
            continue;
        shown = point.bestCostS;
        std::printf("%s %.2f→%.3f", printed++ % 6 == 0 ? "\n     " : ",", point.elapsedS,
                    point.bestCostS);
    }
    if (!trace.empty())
        std::printf("\n    last point: iteration %d at %.2f s\n", trace.back().iteration,
                    trace.back().elapsedS);
    else
        std::printf(" (empty)\n");
}

void printOutcome(const Result<PlanSearch> &search, const Topology &topology)
{
    if (!search) {
        std::printf("    no plan: %s\n", search.error().message.substr(0, 160).c_str());
        return;
    }
    int gpus = 0;
    size_t stages = 0;
    for (const Pipeline &pipeline : search->plan.pipelines) {
        stages += pipeline.stages.size();
        for (const Stage &stage : pipeline.stages)
            gpus += int(stage.gpus.size());
    }
    std::printf(
        "    plan: iteration %.3f s, MFU %.1f %%, %zu pipelines, %zu stages, %d GPUs used%s\n",
        search->evaluation.iterationS, 100 * search->evaluation.mfu, search->plan.pipelines.size(),
        stages, gpus, search->stoppedEarly ? " (stopped early)" : "");
    std::printf("%s", describeIdleGpus(*search, topology).c_str());
}

// Wall-clock seconds in *planS; processor seconds of this process in *cpuS, which on a shared
// machine says more about the planner than the wall clock.
Result<PlanSearch> planFleet(const Problem &problem, const PlannerOptions &options,
                             std::stop_token stop, double *planS, double *cpuS = nullptr)
{
    const auto planner = makePlanner(defaultPlanner(Mode::Train));
    const auto costModel = makeCostModel(CostModelKind::HetPlan);
    NullProgress progress;
    const auto start = Clock::now();
    const std::clock_t cpuStart = std::clock();
    Result<PlanSearch> search
        = planner.value()->plan(problem, *costModel, options, std::move(stop), progress);
    *planS = secondsSince(start);
    if (cpuS)
        *cpuS = double(std::clock() - cpuStart) / CLOCKS_PER_SEC;
    return search;
}

void benchScale(int machines)
{
    if (machines == 128)
        std::printf("Default planner on the generated fleet, llama2-70b, global batch %d, "
                    "sequence %d (budget: 16,384 GPUs under 30 s)\n",
                    fleetWorkload().train.globalBatch, fleetWorkload().train.seqLen);
    double topologyS = 0;
    const Problem problem = fleetProblem(machines, &topologyS);
    double planS = 0;
    double cpuS = 0;
    const Result<PlanSearch> search
        = planFleet(problem, defaultPlannerOptions(), {}, &planS, &cpuS);
    std::printf("%5d GPUs: topology %.3f s, planned in %.3f s (processor %.3f s)\n", machines * 8,
                topologyS, planS, cpuS);
    printOutcome(search, problem.topology);
    if (search)
        printTrace(search->trace);
    std::fflush(stdout);
}

void benchScaleLimits()
{
    double topologyS = 0;
    const Problem problem = fleetProblem(2048, &topologyS);
    std::printf("16,384 GPUs under a time limit and a stop request (topology %.3f s)\n", topologyS);
    for (double limitS : {5.0, 1.0}) {
        PlannerOptions options;
        options.timeLimitS = limitS;
        double planS = 0;
        const Result<PlanSearch> search = planFleet(problem, options, {}, &planS);
        std::printf("  time limit %.0f s: returned after %.3f s (%+.3f s past the limit)\n", limitS,
                    planS, planS - limitS);
        printOutcome(search, problem.topology);
    }
    static constexpr double kStopAfterS = 3;
    std::stop_source stop;
    std::jthread stopper([&stop] {
        std::this_thread::sleep_for(std::chrono::duration<double>(kStopAfterS));
        stop.request_stop();
    });
    double planS = 0;
    const Result<PlanSearch> search = planFleet(problem, {}, stop.get_token(), &planS);
    std::printf("  stop requested after %.0f s: returned after %.3f s (%+.3f s late)\n",
                kStopAfterS, planS, planS - kStopAfterS);
    printOutcome(search, problem.topology);
}

const Register kScale1k("scale-1k", [] { benchScale(128); });
const Register kScale4k("scale-4k", [] { benchScale(512); });
const Register kScale16k("scale-16k", [] { benchScale(2048); });
const Register kScaleLimits("scale-limits", benchScaleLimits);

} // namespace
} // namespace hetplan::bench
