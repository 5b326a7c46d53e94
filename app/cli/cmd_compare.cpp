#include "app/cli/commands.h"
#include "app/cli/planning.h"
#include "app/cli/report.h"
#include "app/cli/setup.h"
#include "app/cli/signals.h"
#include "core/cost/prediction_interval.h"
#include "core/io/report_json.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <limits>
#include <optional>

namespace hetplan::cli {
namespace {

std::string cell(const char *fmt, double value)
{
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, fmt, value);
    return buffer;
}

void printRow(const CompareRow &row)
{
    const std::string name(plannerName(row.planner));
    if (!row.search) {
        std::printf("%-12s %12s %17s %8s %12s %10s %10s  %s\n", name.c_str(), "-", "-", "-", "-",
                    "-", "-", row.search.error().message.c_str());
        return;
    }
    const Evaluation &evaluation = row.search->evaluation;
    const std::string range
        = evaluation.interval ? formatRange(evaluation.interval->iteration) : std::string("-");
    std::string status = "ok";
    if (evaluation.interval && evaluation.interval->extrapolates()) {
        status += ", extrapolates: ";
        status += extrapolationText(*evaluation.interval);
    }
    std::printf("%-12s %12s %s %8s %12s %10zu %10s  %s\n", name.c_str(),
                formatSeconds(evaluation.iterationS).c_str(), padLeft(range, 17).c_str(),
                cell("%.1f %%", 100 * evaluation.mfu).c_str(),
                cell("%.0f", evaluation.tokensPerS).c_str(), row.search->plan.pipelines.size(),
                formatSeconds(row.search->planningS).c_str(), status.c_str());
}

// Plans first, by `rankBy` (stable: ties keep the order the planners ran in).
void rank(std::vector<CompareRow> &rows, RankBy rankBy)
{
    const auto key = [rankBy](const CompareRow &row) {
        return row.search ? rankingS(row.search->evaluation, rankBy)
                          : std::numeric_limits<double>::infinity();
    };
    std::stable_sort(rows.begin(), rows.end(),
                     [&](const CompareRow &a, const CompareRow &b) { return key(a) < key(b); });
}

} // namespace

int runCompare(const std::vector<std::string> &words)
{
    auto run = prepare(words, {"planners", "rank-by"});
    if (!run)
        return fail(run.error());
    const Args &args = run->args;
    std::optional<RankBy> rankBy;
    if (const std::optional<std::string> name = args.value("rank-by")) {
        for (const EnumName<RankBy> &choice : kRankByNames)
            if (choice.name == *name)
                rankBy = choice.value;
        if (!rankBy)
            return fail(badInput("--rank-by " + *name + ": valid: mean, p90"));
    }
    const Problem &problem = run->problem;
    const std::vector<PlannerKind> &kinds = run->planners;
    const StoppableScope stoppable;

    const bool json = args.has("json");
    std::vector<CompareRow> rows;
    int succeeded = 0;
    int noFit = 0;
    // Ranked rows wait for the last planner; unranked ones print as each planner returns.
    const bool streamed = !json && !rankBy;
    if (!json)
        std::printf("%-12s %12s %17s %8s %12s %10s %10s  %s\n", "planner", "iteration",
                    "90 % interval", "MFU", "tokens/s", "pipelines", "planned in", "status");
    for (PlannerKind kind : kinds) {
        if (receivedSignal() != 0)
            break;
        auto search = runPlanner(kind, problem, *run->costModel, run->options);
        if (search)
            ++succeeded;
        else
            noFit += search.error().kind == ErrorKind::NoPlanFits;
        rows.push_back(CompareRow{kind, std::move(search)});
        if (streamed)
            printRow(rows.back());
    }
    if (rankBy)
        rank(rows, *rankBy);
    if (json)
        std::cout << compareReportJson(run->costModel->name(), rows, problem.topology, rankBy)
                  << '\n';
    else if (!streamed)
        for (const CompareRow &row : rows)
            printRow(row);
    if (receivedSignal() != 0) {
        std::cerr << "hetplan-cli: stopped by " << receivedSignalName() << '\n';
        return signalExitCode();
    }
    if (succeeded > 0)
        return 0;
    return noFit > 0 ? 3 : 1;
}

} // namespace hetplan::cli
