#include "app/cli/commands.h"
#include "app/cli/report.h"
#include "app/cli/setup.h"
#include "core/cost/cost_model.h"
#include "core/cost/validator.h"
#include "core/io/catalog_json.h"
#include "core/io/files.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"

#include <iostream>

namespace hetplan::cli {
namespace {

// Problems of one file; empty when it is valid.
std::vector<std::string> problemsOfPlan(const std::string &path, const std::string &text,
                                        const Args &args)
{
    auto named = planClusterName(text, path);
    std::optional<std::string> fallback;
    if (named && !named->empty())
        fallback = *named;
    auto topology = topologyFromArgs(args, fallback);
    if (!topology)
        return {topology.error().message};
    auto plan = parsePlan(text, path, *topology);
    if (!plan)
        return {plan.error().message};
    auto model = loadModel(args.value("model").value_or(plan->model));
    if (!model)
        return {model.error().message};
    auto costModel = costModelFromArgs(
        args, plan->costModel.empty() ? std::nullopt : std::optional(plan->costModel));
    if (!costModel)
        return {costModel.error().message};
    const Problem problem{std::move(topology).value(), std::move(model).value(), plan->workload};
    std::vector<std::string> problems;
    for (const PlanIssue &issue : validatePlan(problem, *plan, costModel->get()))
        problems.push_back(path + ": " + issue.message);
    return problems;
}

std::vector<std::string> problemsOf(const std::string &path, const Args &args)
{
    auto text = readTextFile(path);
    if (!text)
        return {text.error().message};
    auto format = fileFormat(*text, path);
    if (!format)
        return {format.error().message};
    const std::string kind = format->substr(0, format->find('/'));
    if (kind == "hetplan.cluster") {
        auto cluster = parseCluster(*text, path);
        if (!cluster)
            return {cluster.error().message};
        if (auto topology = Topology::build(*cluster, builtinGpuCatalog()); !topology)
            return {path + ": " + topology.error().message};
        return {};
    }
    if (kind == "hetplan.model") {
        auto model = parseModel(*text, path);
        return model ? std::vector<std::string>{} : std::vector{model.error().message};
    }
    if (kind == "hetplan.workload") {
        auto workload = parseWorkload(*text, path);
        return workload ? std::vector<std::string>{} : std::vector{workload.error().message};
    }
    if (kind == "hetplan.plan")
        return problemsOfPlan(path, *text, args);
    return {path + ": format: '" + *format
            + "' is not a HetPlan file; valid: hetplan.cluster/1, hetplan.model/1, "
              "hetplan.workload/1, hetplan.plan/1"};
}

} // namespace

int runValidate(const std::vector<std::string> &words)
{
    auto args = Args::parse(words, Args::Spec{{"cluster", "model", "cost-model"}, {}});
    if (!args)
        return fail(args.error());
    if (args->positional().empty())
        return fail(badInput("validate: name at least one file"));
    bool allValid = true;
    for (const std::string &path : args->positional()) {
        const auto problems = problemsOf(path, *args);
        if (problems.empty()) {
            std::cout << path << ": ok\n";
            continue;
        }
        allValid = false;
        for (const std::string &p : firstLines(problems))
            std::cerr << p << '\n';
    }
    return allValid ? 0 : 2;
}

} // namespace hetplan::cli
