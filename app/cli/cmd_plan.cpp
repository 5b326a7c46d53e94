#include "app/cli/commands.h"
#include "app/cli/planning.h"
#include "app/cli/report.h"
#include "app/cli/setup.h"

#include "core/io/files.h"
#include "core/io/formats.h"

#include <iostream>
#include <nlohmann/json.hpp>

namespace hetplan::cli {

int runPlan(const std::vector<std::string> &words)
{
    auto run = prepare(words, {"out"});
    if (!run)
        return fail(run.error());
    const Args &args = run->args;
    const Problem &problem = run->problem;
    auto search = runPlanner(run->planner, problem, *run->costModel, run->seed);
    if (!search)
        return fail(search.error());

    if (const auto out = args.value("out")) {
        if (auto written = writeFileAtomic(*out, writePlan(search->plan, problem.topology)); !written)
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
