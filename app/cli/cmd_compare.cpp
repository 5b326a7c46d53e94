#include "app/cli/commands.h"
#include "app/cli/planning.h"
#include "app/cli/report.h"
#include "app/cli/setup.h"
#include "app/cli/signals.h"

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

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

    nlohmann::json rows = nlohmann::json::array();
    int succeeded = 0;
    int noFit = 0;
    if (!args.has("json"))
        std::printf("%-12s %12s %8s %12s %10s %10s  %s\n", "planner", "iteration", "MFU",
                    "tokens/s", "pipelines", "planned in", "status");
    for (PlannerKind kind : kinds) {
        if (receivedSignal() != 0)
            break;
        auto search = runPlanner(kind, problem, *run->costModel, run->options);
        nlohmann::json row{{"planner", plannerName(kind)}};
        if (search) {
            ++succeeded;
            row.update(planSearchToJson(*search, problem));
            row["status"] = "ok";
        } else {
            noFit += search.error().kind == ErrorKind::NoPlanFits;
            row["status"] = search.error().kind == ErrorKind::NoPlanFits ? "no plan fits" : "error";
            row["error"] = search.error().message;
            if (const auto &fit = search.error().noFit)
                row["no_fit"] = noFitToJson(*fit);
        }
        if (args.has("json")) {
            rows.push_back(std::move(row));
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
    if (args.has("json"))
        std::cout << nlohmann::json{{"cost_model", run->costModel->name()}, {"results", rows}}.dump(
            2) << '\n';
    if (receivedSignal() != 0) {
        std::cerr << "hetplan-cli: stopped by " << receivedSignalName() << '\n';
        return signalExitCode();
    }
    if (succeeded > 0)
        return 0;
    return noFit > 0 ? 3 : 1;
}

} // namespace hetplan::cli
