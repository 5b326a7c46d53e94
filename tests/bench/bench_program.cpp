// Budget: compiling a 240-GPU plan into per-rank runtime programs under 100 ms
// (docs/architecture.md, Budgets). The plan is HexiScale's for the large cluster (Llama-2 70B); the
// checker's time is reported beside it (it runs once before a launch, with no budget of its own).
#include "core/cost/cost_model.h"
#include "core/planners/planner.h"
#include "runtime/program/check.h"
#include "runtime/program/compile.h"
#include "tests/bench/bench_util.h"

#include <cstdio>
#include <ctime>
#include <functional>

namespace hetplan::bench {
namespace {

// Processor time of this process per call, over calls lasting at least ~0.5 s in all.
double cpuSecondsPerCall(const std::function<void()> &body)
{
    const std::clock_t start = std::clock();
    long calls = 0;
    while (calls < 3 || std::clock() - start < CLOCKS_PER_SEC / 2) {
        body();
        ++calls;
    }
    return double(std::clock() - start) / CLOCKS_PER_SEC / double(calls);
}

void benchProgram()
{
    const Problem large = exampleProblem("large-cluster", "llama2-70b");
    auto planner = makePlanner(PlannerKind::HexiScale);
    const auto costModel = makeCostModel(CostModelKind::HetPlan);
    NullProgress progress;
    auto search = (*planner)->plan(large, *costModel, PlannerOptions{}, {}, progress);
    if (!search) {
        std::printf("program compile: no plan: %s\n", search.error().message.c_str());
        return;
    }
    auto program = runtime::compileProgram(search->plan, large.model, large.topology);
    if (!program) {
        std::printf("program compile: refused: %s\n", program.error().message.c_str());
        return;
    }
    size_t ops = 0;
    for (const auto &rankOps : program->programs)
        ops += rankOps.size();
    const Status checked = runtime::checkProgram(*program);
    const auto compile = [&] {
        auto again = runtime::compileProgram(search->plan, large.model, large.topology);
        (void)again;
    };
    const auto check = [&] { (void)runtime::checkProgram(*program); };
    runtime::ProgramOptions lastRank; // what one worker compiles for itself
    lastRank.rank = static_cast<int>(program->ranks.size()) - 1;
    const auto compileOne = [&] {
        auto one = runtime::compileProgram(search->plan, large.model, large.topology, lastRank);
        (void)one;
    };
    // Wall time is the budget; CPU time beside it shows what a loaded machine adds.
    std::printf("%-44s compile %7.2f ms (budget 100 ms; CPU %.2f ms)  check %7.2f ms (CPU "
                "%.2f ms)\n%-44s one rank's program %.2f ms (CPU %.2f ms)\n%-44s %zu ranks, %zu "
                "pipelines, %zu groups, %zu ops; check %s\n",
                "large-cluster 240 GPUs, llama2-70b, hexiscale",
                medianSecondsPerCall(compile) * 1e3, cpuSecondsPerCall(compile) * 1e3,
                medianSecondsPerCall(check) * 1e3, cpuSecondsPerCall(check) * 1e3, "",
                medianSecondsPerCall(compileOne) * 1e3, cpuSecondsPerCall(compileOne) * 1e3, "",
                program->ranks.size(), program->pipelines.size(), program->groups.size(), ops,
                checked ? "passed" : checked.error().message.c_str());
}

const Register kProgram("program", benchProgram);

} // namespace
} // namespace hetplan::bench
