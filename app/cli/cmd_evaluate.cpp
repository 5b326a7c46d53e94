#include "app/cli/commands.h"
#include "app/cli/measured_report.h"
#include "app/cli/planning.h"
#include "app/cli/report.h"
#include "app/cli/serving_report.h"
#include "app/cli/setup.h"
#include "core/cost/validator.h"
#include "core/io/files.h"
#include "core/io/formats.h"
#include "core/io/measurement_json.h"
#include "core/io/report_json.h"
#include "core/io/serving_measurement_json.h"
#include "core/serving/serving_phases.h"
#include "runtime/worker/measured_run.h"

#include <iostream>

namespace hetplan::cli {
namespace {

constexpr std::string_view kServingKind = "hetplan.serving-measurement/";

// Prints the problems of an invalid plan, as JSON (every one: a script must see them all) and as
// lines on stderr; exit 2. On the terminal a plan with thousands of broken pipelines gets the
// first few and a count, not megabytes of text.
int reportInvalid(const std::string &planPath, const std::vector<PlanIssue> &issues, bool json)
{
    std::vector<std::string> messages;
    messages.reserve(issues.size());
    for (const PlanIssue &issue : issues)
        messages.push_back(issue.message);
    const std::vector<std::string> shown = firstLines(messages);
    if (json)
        std::cout << invalidPlanReportJson(messages) << '\n';
    std::cerr << "hetplan-cli: error: " << planPath << " is not a valid plan (" << issues.size()
              << (issues.size() == 1 ? " problem" : " problems") << "):\n";
    for (const std::string &message : shown)
        std::cerr << "  " << message << '\n';
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
    if (Status none = args->noPositional(spec); !none)
        return fail(none.error());
    // Every input is read before any work: a broken measurement is refused as such. A training
    // run and a serving run are told apart by their format.
    std::optional<Measurement> measured;
    std::optional<ServingMeasurement> served;
    if (const auto path = args->value("measured")) {
        auto text = readTextFile(*path);
        if (!text)
            return fail(text.error());
        const auto format = fileFormat(*text, *path);
        if (format && format->starts_with(kServingKind)) {
            auto loaded = parseServingMeasurement(*text, *path);
            if (!loaded)
                return fail(loaded.error());
            served = std::move(loaded).value();
        } else {
            auto loaded = parseMeasurement(*text, *path);
            if (!loaded)
                return fail(loaded.error());
            measured = std::move(loaded).value();
        }
    }
    auto planFile = planFromArgs(*args);
    if (!planFile)
        return fail(planFile.error());
    const std::string &planPath = planFile->path;
    const Plan &plan = planFile->plan;

    ProblemDefaults defaults{plan.model.empty() ? std::nullopt : std::optional(plan.model),
                             plan.workload, "plan file " + planPath};
    WorkloadOrigin origin;
    auto problem = buildProblem(std::move(planFile->topology), *args, defaults, &origin);
    if (!problem)
        return fail(problem.error());
    auto costModel = costModelFromArgs(
        *args, plan.costModel.empty() ? std::nullopt : std::optional(plan.costModel));
    if (!costModel)
        return fail(costModel.error());

    if (served && problem->workload.mode != Mode::Infer)
        return fail(badInput(*args->value("measured") + " is a serving run, " + planPath
                             + " a training plan; give the inference plan the run served"));
    const auto issues = validatePlan(*problem, plan, costModel->get());
    if (!issues.empty())
        return reportInvalid(planPath, issues, args->has("json"));

    Evaluation evaluation = (*costModel)->evaluate(*problem, plan);
    addServingFigures(*problem, **costModel, plan, evaluation);
    std::optional<ServingPhases> phases;
    std::optional<ServingFiguresInterval> servingInterval;
    std::optional<ServingComparison> servedComparison;
    if (problem->workload.mode == Mode::Infer) {
        phases = servingPhases(*problem, **costModel, plan);
        servingInterval = servePlanInterval(*problem, **costModel, plan);
    }
    if (served) {
        auto compared = compareServedRun(*served, *args->value("measured"), *problem, **costModel,
                                         plan, planPath);
        if (!compared)
            return fail(compared.error());
        servedComparison = std::move(compared).value();
    }
    std::vector<Comparison> comparison;
    if (measured) {
        auto rows = compareWithRun(*problem, **costModel, plan, planPath, *measured,
                                   *args->value("measured"));
        if (!rows)
            return fail(rows.error());
        comparison = std::move(rows).value();
    }
    if (args->has("json")) {
        std::string report = evaluateReportJson(evaluation, problem->topology, problem->workload,
                                                origin, measured ? &comparison : nullptr);
        if (phases)
            report = withServingReport(report, *phases,
                                       servedComparison ? &*servedComparison : nullptr,
                                       &*servingInterval);
        std::cout << report << '\n';
    } else {
        printWorkload(std::cout, problem->workload, origin);
        printPlan(std::cout, *problem, plan);
        printEvaluation(std::cout, *problem, evaluation);
        if (servingInterval)
            printServingInterval(std::cout, *servingInterval);
        if (phases)
            printServingPhases(std::cout, *phases);
        if (measured)
            printComparison(std::cout, *measured, comparison);
        if (served)
            printServingComparison(std::cout, *served, *servedComparison);
    }
    return 0;
}

} // namespace hetplan::cli
