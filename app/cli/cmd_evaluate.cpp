#include "app/cli/commands.h"
#include "app/cli/measured_report.h"
#include "app/cli/planning.h"
#include "app/cli/report.h"
#include "app/cli/setup.h"
#include "core/cost/validator.h"
#include "core/io/evaluation_json.h"
#include "core/io/files.h"
#include "core/io/formats.h"

#include <iostream>
#include <nlohmann/json.hpp>

namespace hetplan::cli {
namespace {

// Prints the problems of an invalid plan, as JSON or as lines on stderr; exit 2.
int reportInvalid(const std::string &planPath, const std::vector<PlanIssue> &issues, bool json)
{
    if (json) {
        nlohmann::json errors = nlohmann::json::array();
        for (const PlanIssue &issue : issues)
            errors.push_back(issue.message);
        std::cout << nlohmann::json{{"valid", false}, {"errors", errors}}.dump(2) << '\n';
    }
    std::cerr << "hetplan-cli: error: " << planPath << " is not a valid plan:\n";
    for (const PlanIssue &issue : issues)
        std::cerr << "  " << issue.message << '\n';
    return 2;
}

} // namespace

int runEvaluate(const std::vector<std::string> &words)
{
    Args::Spec spec{problemOptions(), {"json"}};
    spec.options.insert("plan");
    spec.options.insert("measured");
    auto args = Args::parse(words, spec);
    if (!args)
        return fail(args.error());
    auto planPath = args->required("plan");
    if (!planPath)
        return fail(planPath.error());
    auto planText = readTextFile(*planPath);
    if (!planText)
        return fail(planText.error());

    std::optional<std::string> planCluster;
    if (auto named = planClusterName(*planText, *planPath); named && !named->empty())
        planCluster = *named;
    auto topology = topologyFromArgs(*args, planCluster);
    if (!topology)
        return fail(topology.error());
    auto plan = parsePlan(*planText, *planPath, *topology);
    if (!plan)
        return fail(plan.error());

    ProblemDefaults defaults{plan->model.empty() ? std::nullopt : std::optional(plan->model),
                             plan->workload};
    auto problem = buildProblem(std::move(topology).value(), *args, defaults);
    if (!problem)
        return fail(problem.error());
    auto costModel = costModelFromArgs(
        *args, plan->costModel.empty() ? std::nullopt : std::optional(plan->costModel));
    if (!costModel)
        return fail(costModel.error());

    const auto issues = validatePlan(*problem, *plan, costModel->get());
    if (!issues.empty())
        return reportInvalid(*planPath, issues, args->has("json"));

    Evaluation evaluation = (*costModel)->evaluate(*problem, *plan);
    addServingFigures(*problem, **costModel, *plan, evaluation);
    std::optional<Measurement> measured;
    if (const auto path = args->value("measured")) {
        auto loaded = loadMeasurement(*path);
        if (!loaded)
            return fail(loaded.error());
        measured = std::move(loaded).value();
    }
    if (args->has("json")) {
        nlohmann::json out = evaluationToJson(evaluation, problem->topology);
        if (measured)
            out["measured"] = comparisonJson(compareMeasured(*plan, evaluation, *measured));
        std::cout << out.dump(2) << '\n';
    } else {
        printPlan(std::cout, *problem, *plan);
        printEvaluation(std::cout, *problem, evaluation);
        if (measured)
            printComparison(std::cout, *measured, compareMeasured(*plan, evaluation, *measured));
    }
    return 0;
}

} // namespace hetplan::cli
