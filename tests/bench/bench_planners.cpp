// Budgets: any planner on a <= 64-GPU cluster under 1 s; HexiScale on the 240-GPU large
// cluster under 2 s. Each planner reports its time to plan and the plan's iteration time.
#include "core/cost/cost_model.h"
#include "core/planners/planner.h"
#include "tests/bench/bench_util.h"

#include <chrono>
#include <cstdio>

namespace hetplan::bench {
namespace {

void planOnce(const char *label, const Problem &problem, PlannerKind kind, CostModelKind costKind)
{
    auto planner = makePlanner(kind);
    if (!planner) {
        std::printf("%-44s %-10s skipped: %s\n", label, std::string(plannerName(kind)).c_str(),
                    planner.error().message.c_str());
        return;
    }
    const auto costModel = makeCostModel(costKind);
    NullProgress progress;
    std::stop_source stop;
    const auto start = std::chrono::steady_clock::now();
    auto search
        = (*planner)->plan(problem, *costModel, PlannerOptions{}, stop.get_token(), progress);
    const double seconds
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!search) {
        std::printf("%-44s %-10s %8.3f s  %s\n", label, std::string(plannerName(kind)).c_str(),
                    seconds, search.error().message.substr(0, 80).c_str());
        return;
    }
    // Convergence: the iteration at which the final best was first reached.
    int settledAt = 0;
    for (const TracePoint &t : search->trace)
        if (t.bestCostS > search->evaluation.iterationS * (1 + 1e-9))
            settledAt = t.iteration + 1;
    const double firstS = search->trace.empty() ? 0 : search->trace.front().bestCostS;
    std::printf(
        "%-44s %-10s %8.3f s  iteration %.3f s  MFU %.1f %%  (%zu candidates; first %.3f s, "
        "best from iteration %d)\n",
        label, std::string(plannerName(kind)).c_str(), seconds, search->evaluation.iterationS,
        100 * search->evaluation.mfu, search->trace.size(), firstS, settledAt);
}

void benchPlanners()
{
    const Problem caseStudy = exampleProblem("case-study", "llama2-13b");
    const Problem synthetic64 = syntheticProblem(8, "llama2-70b");
    const Problem large = exampleProblem("large-cluster", "llama2-70b");
    for (PlannerKind kind : plannersFor(Mode::Train)) {
        planOnce("case-study, llama2-13b, hexiscale-paper", caseStudy, kind,
                 CostModelKind::HexiScalePaper);
        planOnce("synthetic 64 GPUs, llama2-70b, hetplan", synthetic64, kind,
                 CostModelKind::HetPlan);
        planOnce("large-cluster 240 GPUs, llama2-70b, hetplan", large, kind,
                 CostModelKind::HetPlan);
    }
    const Problem synthetic1024 = syntheticProblem(128, "llama2-70b");
    planOnce("synthetic 1024 GPUs, llama2-70b, hetplan", synthetic1024, PlannerKind::HexiScale,
             CostModelKind::HetPlan);
}

const Register kPlanners("planners", benchPlanners);

} // namespace
} // namespace hetplan::bench
