#include "app/cli/commands.h"
#include "app/cli/planning.h"
#include "app/cli/report.h"
#include "app/cli/setup.h"
#include "core/io/files.h"
#include "core/io/formats.h"
#include "core/planners/hexgen/hexgen_planner.h"

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

namespace hetplan::cli {
namespace {

constexpr const char *kPlanHelp
    = R"(usage: hetplan-cli plan --cluster FILE|EXAMPLE --model NAME|FILE [opts]

  --planner NAME        hexiscale, metis, holmes, megatron, exhaustive (training);
                        hexgen (inference); default: the mode's own
  --cost-model NAME     hetplan (default), hexiscale-paper, hexgen-paper
  --workload FILE       else the example's workload, else defaults; single fields:
                        --mode train|infer --global-batch N --micro-batch N --seq-len N
                        --prompt-len N --output-len N --request-rate R --slo S
  --seed N              same seed, same plan
  --knob NAME=V[,...]   planner settings, e.g. metis variance=0.3, holmes alpha=1.05,
                        hexgen prefer_replicas=0 (rank by sustainable rate, not replicas)
  --out FILE            write the plan file
  --json                plan, estimate and search trace as JSON
  --warm-start FILE     start from this plan and search locally (HexGen §5.3). GPUs it
                        names that the cluster no longer has are dropped from it, so a
                        plan for the old cluster is a valid warm start for a smaller one
  --remove-gpus LIST    GPUs that left, e.g. A:0,A:1 (hexgen only): they stay in the
                        cluster file but the plan never uses them

Inference (hexgen): the search trace's best_s is 1 − SLO attainment; the estimate adds
the serving simulation (attainment, p50/p99 latency, highest sustainable rate).
)";

} // namespace

int runPlan(const std::vector<std::string> &words)
{
    if (std::find(words.begin(), words.end(), "--help") != words.end()) {
        std::cout << kPlanHelp;
        return 0;
    }
    auto run = prepare(words, {"out", "warm-start", "remove-gpus"});
    if (!run)
        return fail(run.error());
    const Args &args = run->args;
    const Problem &problem = run->problem;

    std::vector<int> offline;
    if (const auto names = args.value("remove-gpus")) {
        if (run->planner != PlannerKind::HexGen)
            return fail(badInput("--remove-gpus: only the hexgen planner re-plans around GPUs "
                                 "that left; for others give a cluster file without them"));
        auto gpus = parseGpuList("remove-gpus", *names, problem.topology);
        if (!gpus)
            return fail(gpus.error());
        offline = std::move(gpus).value();
    }
    std::optional<Plan> warmStart;
    if (const auto path = args.value("warm-start")) {
        auto loaded = loadWarmStart(*path, problem.topology, offline);
        if (!loaded)
            return fail(loaded.error());
        warmStart = std::move(loaded).value();
    }
    const Plan *warm = warmStart ? &*warmStart : nullptr;
    const CostModel &costModel = *run->costModel;
    auto search = run->planner == PlannerKind::HexGen
                      ? runPlanner(HexGenPlanner(offline), problem, costModel, run->options, warm)
                      : runPlanner(run->planner, problem, costModel, run->options, warm);
    if (!search)
        return fail(search.error());
    addServingFigures(problem, costModel, search->plan, search->evaluation);

    if (const auto out = args.value("out")) {
        if (auto written = writeFileAtomic(*out, writePlan(search->plan, problem.topology));
            !written)
            return fail(written.error());
    }
    if (args.has("json")) {
        std::cout << planSearchToJson(*search, problem).dump(2) << '\n';
    } else {
        printPlan(std::cout, problem, search->plan);
        printEvaluation(std::cout, problem, search->evaluation);
        std::cout << "\n  Planned in " << formatSeconds(search->planningS) << " ("
                  << search->trace.size() << " candidates)\n";
    }
    return 0;
}

} // namespace hetplan::cli
