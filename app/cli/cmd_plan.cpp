#include "app/cli/commands.h"
#include "app/cli/output.h"
#include "app/cli/planning.h"
#include "app/cli/report.h"
#include "app/cli/setup.h"
#include "app/cli/signals.h"
#include "core/io/formats.h"
#include "core/io/report_json.h"

#include <algorithm>
#include <iostream>

namespace hetplan::cli {
namespace {

// --remove-gpus: the GPUs that left, for the hexgen re-planner only.
Result<std::vector<int>> removedGpus(const Invocation &run)
{
    const auto names = run.args.value("remove-gpus");
    if (!names)
        return std::vector<int>{};
    if (run.planner != PlannerKind::HexGen)
        return badInput("--remove-gpus: only the hexgen planner re-plans around GPUs that left; "
                        "for others give a cluster file without them");
    auto gpus = parseGpuList("remove-gpus", *names, run.problem.topology);
    if (gpus && int(gpus->size()) >= run.problem.topology.gpuCount()) {
        std::vector<char> listed(std::size_t(run.problem.topology.gpuCount()), 0);
        for (int g : *gpus)
            listed[std::size_t(g)] = 1;
        if (std::find(listed.begin(), listed.end(), 0) == listed.end())
            return badInput("--remove-gpus: no GPUs left after --remove-gpus: it lists all "
                            + std::to_string(run.problem.topology.gpuCount()) + " GPUs of cluster '"
                            + run.problem.topology.cluster().name + "'; leave at least one");
    }
    return gpus;
}

} // namespace

int runPlan(const std::vector<std::string> &words)
{
    auto run = prepare(words, {"out", "warm-start", "remove-gpus"});
    if (!run)
        return fail(run.error());
    const Args &args = run->args;
    const Problem &problem = run->problem;
    auto out = outputFromArgs(args);
    if (!out)
        return fail(out.error());
    const bool planToStdout = *out && **out == kStandardOutput;
    if (planToStdout && args.has("json"))
        return fail(badInput("--out - and --json both write to standard output; give --out a "
                             "file name, or leave out one of them"));

    auto removed = removedGpus(*run);
    if (!removed)
        return fail(removed.error());
    run->options.excludedGpus = std::move(removed).value();
    if (const auto path = args.value("warm-start")) {
        auto loaded = loadWarmStart(*path, problem.topology, run->options.excludedGpus);
        if (!loaded)
            return fail(loaded.error());
        run->options.warmStart = std::move(loaded).value();
    }

    const CostModel &costModel = *run->costModel;
    const StoppableScope stoppable;
    auto search = runPlanner(run->planner, problem, costModel, run->options);
    if (!search) {
        if (receivedSignal() != 0) {
            std::cerr << "hetplan-cli: stopped by " << receivedSignalName()
                      << " before any plan was found: " << search.error().message << '\n';
            return signalExitCode();
        }
        return fail(search.error());
    }
    addServingFigures(problem, costModel, search->plan, search->evaluation);

    if (*out)
        if (Status written = writeOutput(**out, writePlan(search->plan, problem.topology));
            !written)
            return fail(written.error());
    std::ostream &report = planToStdout ? std::cerr : std::cout;
    if (args.has("json")) {
        report << planReportJson(*search, problem.topology, problem.workload, run->workloadOrigin)
               << '\n';
    } else {
        printWorkload(report, problem.workload, run->workloadOrigin);
        printPlan(report, problem, search->plan);
        printEvaluation(report, problem, search->evaluation);
        report << describeIdleGpus(*search, problem.topology);
        report << "\n  Planned in " << formatSeconds(search->planningS) << " ("
               << search->trace.size() << " candidates)\n";
    }
    if (search->stoppedEarly) {
        const std::string why = receivedSignal() != 0
                                    ? std::string("stopped by ") + receivedSignalName()
                                    : "the time limit was reached";
        std::cerr << "hetplan-cli: " << why << "; this is the best plan found so far"
                  << (*out && !planToStdout ? " (written to " + **out + ")" : std::string())
                  << '\n';
    }
    return receivedSignal() != 0 ? signalExitCode() : 0;
}

} // namespace hetplan::cli
