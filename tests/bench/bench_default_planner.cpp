// Budgets: the default planner on the 64-GPU synthetic cluster under 0.27 s, on the 240-GPU
// large cluster under 2 s (docs/architecture.md, "Budgets"). The default planner and cost model
// at the sizes the HexiScale authors' reference planner is measured on (8, 32, 64 and 240
// GPUs): the median planning time of three runs, the plan's iteration time and how many GPUs
// it uses. The 1k/4k/16k fleet is bench_scale.cpp.
#include "core/cost/cost_model.h"
#include "core/planners/planner.h"
#include "tests/bench/bench_util.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>

namespace hetplan::bench {
namespace {

void planSize(const char *label, const Problem &problem)
{
    const auto planner = makePlanner(defaultPlanner(Mode::Train));
    const auto costModel = makeCostModel(CostModelKind::HetPlan);
    std::vector<double> seconds;
    std::vector<double> cpuSeconds; // this process's processor time: steadier on a busy machine
    Result<PlanSearch> search = Error{ErrorKind::Internal, "not planned"};
    constexpr int kRuns = 3;
    for (int run = 0; run < kRuns; ++run) {
        NullProgress progress;
        const auto start = std::chrono::steady_clock::now();
        const std::clock_t cpuStart = std::clock();
        search = planner.value()->plan(problem, *costModel, defaultPlannerOptions(), {}, progress);
        seconds.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        cpuSeconds.push_back(double(std::clock() - cpuStart) / CLOCKS_PER_SEC);
    }
    std::sort(seconds.begin(), seconds.end());
    std::sort(cpuSeconds.begin(), cpuSeconds.end());
    if (!search) {
        std::printf("%-36s %8.3f s  %s\n", label, seconds[kRuns / 2],
                    search.error().message.substr(0, 80).c_str());
        return;
    }
    int used = 0;
    for (const Pipeline &pipeline : search->plan.pipelines)
        for (const Stage &stage : pipeline.stages)
            used += int(stage.gpus.size());
    std::printf("%-38s %7.3f s (processor %.3f s)  iteration %.3f s  %d of %d GPUs used\n", label,
                seconds[kRuns / 2], cpuSeconds[kRuns / 2], search->evaluation.iterationS, used,
                problem.topology.gpuCount());
    std::fflush(stdout);
}

// One case per size, so that `hetplan-bench default-planner-64` runs one alone (for a profiler).
const Register kEight("default-planner-8", [] {
    std::printf(
        "Default planner and cost model, median of 3 plans (budget: 64 GPUs under 0.27 s)\n");
    planSize("case-study 8 GPUs, llama2-13b", exampleProblem("case-study", "llama2-13b"));
});
const Register kThirtyTwo("default-planner-32", [] {
    planSize("hetero-setting-2 32 GPUs, llama2-13b",
             exampleProblem("hetero-setting-2", "llama2-13b"));
});
const Register kSixtyFour("default-planner-64", [] {
    planSize("synthetic 64 GPUs, llama2-70b", syntheticProblem(8, "llama2-70b"));
});
const Register kLarge("default-planner-240", [] {
    planSize("large-cluster 240 GPUs, llama2-70b", exampleProblem("large-cluster", "llama2-70b"));
});

} // namespace
} // namespace hetplan::bench
