#include "app/cli/commands.h"
#include "app/cli/planning.h"
#include "app/cli/report.h"
#include "app/cli/setup.h"
#include "app/cli/signals.h"
#include "core/io/report_json.h"

#include <cstdio>
#include <iostream>

namespace hetplan::cli {
namespace {

std::string cell(const char *fmt, double value)
{
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, fmt, value);
    return buffer;
}

} // namespace

int runCompare(const std::vector<std::string> &words)
{
    auto run = prepare(words, {"planners"});
    if (!run)
        return fail(run.error());
    const Args &args = run->args;
    const Problem &problem = run->problem;
    const std::vector<PlannerKind> &kinds = run->planners;
    const StoppableScope stoppable;

    const bool json = args.has("json");
    std::vector<CompareRow> rows;
    int succeeded = 0;
    int noFit = 0;
    if (!json)
        std::printf("%-12s %12s %8s %12s %10s %10s  %s\n", "planner", "iteration", "MFU",
                    "tokens/s", "pipelines", "planned in", "status");
    for (PlannerKind kind : kinds) {
        if (receivedSignal() != 0)
            break;
        auto search = runPlanner(kind, problem, *run->costModel, run->options);
        if (search)
            ++succeeded;
        else
            noFit += search.error().kind == ErrorKind::NoPlanFits;
        if (json) {
            rows.push_back(CompareRow{kind, std::move(search)});
            continue;
        }
        if (search) {
            std::printf("%-12s %12s %8s %12s %10zu %10s  ok\n",
                        std::string(plannerName(kind)).c_str(),
                        formatSeconds(search->evaluation.iterationS).c_str(),
                        cell("%.1f %%", 100 * search->evaluation.mfu).c_str(),
                        cell("%.0f", search->evaluation.tokensPerS).c_str(),
                        search->plan.pipelines.size(), formatSeconds(search->planningS).c_str());
        } else {
            std::printf("%-12s %12s %8s %12s %10s %10s  %s\n",
                        std::string(plannerName(kind)).c_str(), "-", "-", "-", "-", "-",
                        search.error().message.c_str());
        }
    }
    if (json)
        std::cout << compareReportJson(run->costModel->name(), rows, problem.topology) << '\n';
    if (receivedSignal() != 0) {
        std::cerr << "hetplan-cli: stopped by " << receivedSignalName() << '\n';
        return signalExitCode();
    }
    if (succeeded > 0)
        return 0;
    return noFit > 0 ? 3 : 1;
}

} // namespace hetplan::cli
