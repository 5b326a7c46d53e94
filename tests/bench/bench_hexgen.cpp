// Budget: HexGen on the 58-GPU full-price scenario under 10 s on 2 cores, re-planning after
// 4 GPUs leave under 10 s (HexGen §5.3: under 30 s). Reports the plan's serving figures
// beside the symmetric baseline's and the paper's Appendix F schedule.
#include "core/catalog/catalog.h"
#include "core/cost/cost_model.h"
#include "core/io/formats.h"
#include "core/planners/hexgen/hexgen_planner.h"
#include "core/planners/hexgen/symmetric_baseline.h"
#include "core/serving/plan_serving.h"
#include "tests/bench/bench_util.h"

#include <chrono>
#include <cstdio>
#include <vector>

namespace hetplan::bench {
namespace {

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void printServing(const char *label, const Problem &problem, const CostModel &costModel,
                  const Plan &plan)
{
    const ServingFigures s = servePlan(problem, costModel, plan);
    std::printf("    %-22s %2zu replicas  attainment %5.1f %% at %.2f req/s  p50 %.2f s  p99 %.2f s"
                "  max rate %.3f req/s\n",
                label, plan.pipelines.size(), 100 * s.attainment, s.requestRatePerS, s.p50S, s.p99S,
                s.maxRatePerS);
}

void printAttainment(const char *label, const Problem &problem, const CostModel &costModel,
                     const Plan &plan)
{
    // HexGen §5.1's request rates.
    const ServingSimulator simulator;
    const double sloS = sloSeconds(problem, costModel);
    std::vector<double> latencyS;
    for (const Pipeline &pipeline : plan.pipelines)
        latencyS.push_back(replicaLatencyS(problem, costModel, pipeline));
    std::printf("    %-22s attainment at 0.125 … 8 req/s:", label);
    for (double rate : {0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0})
        std::printf(" %.3f", simulator.attainment(latencyS, rate, sloS));
    std::printf("\n");
}

void benchScenario(const char *cluster, CostModelKind costKind)
{
    // The bundled workload: SLO scale 5 (§5.4), 1 request/s.
    const Problem problem = exampleProblem(cluster, "llama2-70b");
    const auto costModel = makeCostModel(costKind);
    NullProgress progress;
    const auto start = std::chrono::steady_clock::now();
    auto search = HexGenPlanner().plan(problem, *costModel, {}, {}, progress);
    const double planS = secondsSince(start);
    std::printf("%s, llama2-70b, %s, SLO scale 5: planned in %.3f s (%zu generations)\n", cluster,
                std::string(costModel->name()).c_str(), planS,
                search ? search->trace.size() : size_t(0));
    if (!search) {
        std::printf("    %s\n", search.error().message.c_str());
        return;
    }
    printServing("hexgen", problem, *costModel, search->plan);
    PlannerOptions rateFirst;
    rateFirst.parameters.hexgen.preferReplicas = false;
    if (auto fastest = HexGenPlanner().plan(problem, *costModel, rateFirst, {}, progress))
        printServing("hexgen, rate first", problem, *costModel, fastest->plan);
    const ServingSimulator simulator;
    if (auto symmetric
        = bestSymmetricPlan(problem, *costModel, simulator, sloSeconds(problem, *costModel)))
        printServing("symmetric baseline", problem, *costModel, *symmetric);
    if (const auto example = findExample(std::string(cluster) + "-appendix-f", ExampleKind::Plan))
        if (auto paper = parsePlan(example->text, example->path, problem.topology)) {
            printServing("Appendix F", problem, *costModel, *paper);
            printAttainment("hexgen", problem, *costModel, search->plan);
            printAttainment("Appendix F", problem, *costModel, *paper);
        }

    // §5.3: four GPUs of the first replica leave; re-plan from the current plan.
    std::vector<int> offline;
    for (const Stage &stage : search->plan.pipelines.front().stages)
        offline.insert(offline.end(), stage.gpus.begin(), stage.gpus.end());
    offline.resize(std::min<size_t>(offline.size(), 4));
    PlannerOptions options;
    options.warmStart = search->plan;
    const auto replanStart = std::chrono::steady_clock::now();
    options.excludedGpus = offline;
    auto replanned = HexGenPlanner().plan(problem, *costModel, options, {}, progress);
    std::printf("    re-planned without 4 GPUs in %.3f s\n", secondsSince(replanStart));
    if (replanned)
        printServing("hexgen, 4 GPUs gone", problem, *costModel, replanned->plan);
}

void benchHexGen()
{
    benchScenario("hexgen-full-price", CostModelKind::HexGenPaper);
    benchScenario("hexgen-full-price", CostModelKind::HetPlan);
    benchScenario("hexgen-half-price", CostModelKind::HexGenPaper);
}

const Register kHexGen("hexgen", benchHexGen);

} // namespace
} // namespace hetplan::bench
