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
    Args::Spec spec{problemOptions(), {"json"}};
    spec.options.insert({"planner", "seed", "out"});
    auto args = Args::parse(words, spec);
    if (!args)
        return fail(args.error());

    auto problem = buildProblem(*args);
    if (!problem)
        return fail(problem.error());
    auto costModel = costModelFromArgs(*args);
    if (!costModel)
        return fail(costModel.error());

    PlannerKind kind = defaultPlanner(problem->workload.mode);
    if (const auto name = args->value("planner")) {
        auto parsed = plannerKindFromName(*name);
        if (!parsed)
            return fail(Error{ErrorKind::BadInput, "--planner: " + parsed.error().message});
        kind = *parsed;
    }
    auto seed = args->integer("seed", 0, 1 << 30);
    if (!seed)
        return fail(seed.error());

    auto search = runPlanner(kind, *problem, **costModel, static_cast<std::uint64_t>(seed->value_or(1)));
    if (!search)
        return fail(search.error());

    if (const auto out = args->value("out")) {
        if (auto written = writeFileAtomic(*out, writePlan(search->plan, problem->topology)); !written)
            return fail(written.error());
    }
    if (args->has("json")) {
        std::cout << planSearchToJson(*search, *problem).dump(2) << '\n';
    } else {
        printPlan(std::cout, *problem, search->plan);
        printEvaluation(std::cout, *problem, search->evaluation);
        std::cout << "\n  Planned in " << formatSeconds(search->planningS) << " ("
                  << search->trace.size() << " candidates)\n";
    }
    return 0;
}

} // namespace hetplan::cli
