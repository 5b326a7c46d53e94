#include "app/cli/commands.h"
#include "app/cli/report.h"
#include "app/cli/setup.h"
#include "core/cost/cost_model.h"
#include "core/cost/validator.h"
#include "core/io/catalog_json.h"
#include "core/io/files.h"
#include "core/io/formats.h"
#include "core/io/hosts_json.h"
#include "core/io/loaders.h"
#include "core/io/measurement_json.h"
#include "core/io/probe_file.h"
#include "core/io/project_json.h"
#include "core/io/serving_measurement_json.h"

#include <functional>
#include <iostream>
#include <map>

namespace hetplan::cli {
namespace {

template<typename T>
Status statusOf(const Result<T> &read)
{
    if (!read)
        return read.error();
    return okStatus();
}

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
    const std::optional<std::string> modelArg = args.value("model");
    auto model = loadModel(modelArg.value_or(plan->model));
    if (!model)
        return {(modelArg ? "--model: " : path + ": model: ") + model.error().message};
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
    if (kind == "hetplan.plan")
        return problemsOfPlan(path, *text, args);
    // The formats whose reader is the whole check.
    using Reader = Status (*)(std::string_view, std::string_view);
    static const std::map<std::string, Reader, std::less<>> kReaders{
        {"hetplan.model",
         [](std::string_view t, std::string_view p) { return statusOf(parseModel(t, p)); }},
        {"hetplan.workload",
         [](std::string_view t, std::string_view p) { return statusOf(parseWorkload(t, p)); }},
        {"hetplan.hosts",
         [](std::string_view t, std::string_view p) { return statusOf(parseHosts(t, p)); }},
        {"hetplan.probe",
         [](std::string_view t, std::string_view p) { return statusOf(parseProbe(t, p)); }},
        {"hetplan.measurement",
         [](std::string_view t, std::string_view p) { return statusOf(parseMeasurement(t, p)); }},
        {"hetplan.serving-measurement",
         [](std::string_view t, std::string_view p) {
             return statusOf(parseServingMeasurement(t, p));
         }},
        {"hetplan.project",
         [](std::string_view t, std::string_view p) { return statusOf(parseProject(t, p)); }},
        {"hetplan.gpu-catalog",
         [](std::string_view t, std::string_view p) { return statusOf(readGpuCatalog(t, p)); }},
        {"hetplan.model-catalog",
         [](std::string_view t, std::string_view p) { return statusOf(readModelCatalog(t, p)); }},
    };
    if (const auto reader = kReaders.find(kind); reader != kReaders.end()) {
        const Status read = reader->second(*text, path);
        return read ? std::vector<std::string>{} : std::vector{read.error().message};
    }
    std::string valid = "hetplan.cluster/1, hetplan.plan/1";
    for (const auto &[name, reader] : kReaders)
        valid += ", " + name + "/1";
    return {path + ": format: '" + *format + "' is not a format HetPlan reads; valid: " + valid};
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
