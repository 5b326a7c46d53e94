// Budget: any planner on a <= 64-GPU cluster under 1 s (docs/architecture.md, budgets). Metis's
// paper search takes 600 s on 64 GPUs (§5.4); HetPlan bounds its device-group sequences to stay
// within budget.
#include "core/cost/cost_model.h"
#include "core/planners/metis/metis_planner.h"
#include "tests/bench/bench_util.h"

#include <chrono>
#include <cstdio>

namespace hetplan::bench {
namespace {

void planOnce(const char *label, const Problem &problem, CostModelKind costKind)
{
    const auto costModel = makeCostModel(costKind);
    NullProgress progress;
    const auto start = std::chrono::steady_clock::now();
    const auto search = MetisPlanner().plan(problem, *costModel, PlannerOptions{}, {}, progress);
    const double seconds
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!search) {
        std::printf("%-48s %8.3f s  %s\n", label, seconds,
                    search.error().message.substr(0, 80).c_str());
        return;
    }
    const Pipeline &pipeline = search->plan.pipelines.front();
    std::printf("%-48s %8.3f s  iteration %.3f s  MFU %.1f %%  (%zu stages, micro-batch %d)\n",
                label, seconds, search->evaluation.iterationS, 100 * search->evaluation.mfu,
                pipeline.stages.size(), pipeline.microBatch);
}

void benchMetis()
{
    std::printf("Metis planner (budget: under 1 s on a <= 64-GPU cluster)\n");
    planOnce("metis-v100-t4 16 GPUs, gpt3-6.7b, hetplan",
             exampleProblem("metis-v100-t4", "gpt3-6.7b"), CostModelKind::HetPlan);
    planOnce("hetero-setting-3 56 GPUs, llama-30b, hetplan",
             exampleProblem("hetero-setting-3", "llama-30b"), CostModelKind::HetPlan);
    const Problem synthetic64 = syntheticProblem(8, "llama2-70b");
    planOnce("synthetic 64 GPUs, llama2-70b, hetplan", synthetic64, CostModelKind::HetPlan);
    planOnce("synthetic 64 GPUs, llama2-70b, hexiscale-paper", synthetic64,
             CostModelKind::HexiScalePaper);
    planOnce("large-cluster 240 GPUs, llama2-70b, hetplan",
             exampleProblem("large-cluster", "llama2-70b"), CostModelKind::HetPlan);
}

const Register kMetis("metis", benchMetis);

} // namespace
} // namespace hetplan::bench
