#include "app/cli/setup.h"

#include "core/catalog/catalog.h"
#include "core/io/cluster_check.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"

#include <charconv>
#include <cmath>
#include <iostream>
#include <map>
#include <sstream>

namespace hetplan::cli {
namespace {

// "--knob variance=0.3,max_permutation_length=8": planner-specific settings by name.
Result<std::map<std::string, double>> parseKnobs(const std::string &text)
{
    std::map<std::string, double> knobs;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        const auto equals = item.find('=');
        double value = 0;
        const char *begin = item.c_str() + (equals == std::string::npos ? 0 : equals + 1);
        const char *end = item.c_str() + item.size();
        const auto [parsedEnd, code] = std::from_chars(begin, end, value);
        if (equals == 0 || equals == std::string::npos || code != std::errc() || parsedEnd != end
            || !std::isfinite(value))
            return badInput("--knob: expected name=number pairs separated by commas, e.g. "
                            "variance=0.3,max_permutation_length=8; got '"
                            + item + "'");
        knobs[item.substr(0, equals)] = value;
    }
    if (knobs.empty())
        return badInput("--knob: expected name=number, e.g. alpha=1.05");
    return knobs;
}

Result<Workload> baseWorkload(const Args &args, const ProblemDefaults &defaults)
{
    if (const auto path = args.value("workload"))
        return loadWorkload(*path);
    if (defaults.workload)
        return *defaults.workload;
    if (const auto cluster = args.value("cluster")) {
        if (const auto example = findExample(*cluster, ExampleKind::Workload))
            return parseWorkload(example->text, example->path);
    }
    return Workload{};
}

Status applyTrainFlags(const Args &args, TrainWorkload &train)
{
    auto globalBatch = args.integer("global-batch", 1, 1 << 24);
    auto microBatch = args.integer("micro-batch", 1, 1 << 16);
    auto seqLen = args.integer("seq-len", 1, 1 << 22);
    for (const auto *r : {&globalBatch, &microBatch, &seqLen})
        if (!*r)
            return r->error();
    if (*globalBatch)
        train.globalBatch = **globalBatch;
    if (*microBatch)
        train.microBatchSizes = {**microBatch};
    if (*seqLen)
        train.seqLen = **seqLen;
    return okStatus();
}

Status applyInferFlags(const Args &args, InferWorkload &infer)
{
    auto promptLen = args.integer("prompt-len", 1, 1 << 22);
    auto outputLen = args.integer("output-len", 1, 1 << 22);
    for (const auto *r : {&promptLen, &outputLen})
        if (!*r)
            return r->error();
    auto rate = args.number("request-rate", 1e-9, 1e9);
    if (!rate)
        return rate.error();
    auto slo = args.number("slo", 1e-6, 1e9);
    if (!slo)
        return slo.error();
    if (*promptLen)
        infer.promptLen = **promptLen;
    if (*outputLen)
        infer.outputLen = **outputLen;
    if (*rate)
        infer.requestRatePerS = **rate;
    if (*slo) {
        infer.sloS = **slo;
        infer.sloScale.reset();
    }
    return okStatus();
}

Result<Workload> workloadFromArgs(const Args &args, const ProblemDefaults &defaults)
{
    auto workload = baseWorkload(args, defaults);
    if (!workload)
        return workload;
    if (const auto mode = args.value("mode")) {
        if (*mode == "train")
            workload->mode = Mode::Train;
        else if (*mode == "infer")
            workload->mode = Mode::Infer;
        else
            return badInput("--mode: '" + *mode + "' is not a mode; valid: train, infer");
    }
    if (auto s = applyTrainFlags(args, workload->train); !s)
        return s.error();
    if (auto s = applyInferFlags(args, workload->infer); !s)
        return s.error();
    return workload;
}

} // namespace

std::set<std::string> problemOptions()
{
    return {"cluster", "model",      "workload",   "mode",         "global-batch", "micro-batch",
            "seq-len", "prompt-len", "output-len", "request-rate", "slo",          "cost-model"};
}

Result<Topology> topologyFromArgs(const Args &args, std::optional<std::string> fallbackCluster)
{
    const auto clusterName = args.value("cluster") ? args.value("cluster") : fallbackCluster;
    if (!clusterName)
        return badInput("--cluster is required (a bundled example such as case-study, or a "
                        "cluster file; `hetplan-cli catalog examples` lists them)");
    auto cluster = loadCluster(*clusterName);
    if (!cluster)
        return cluster.error();
    auto topology = Topology::build(*cluster, GpuCatalog::builtin());
    if (!topology)
        return Error{topology.error().kind, *clusterName + ": " + topology.error().message};
    if (Status gpus = checkHasGpus(*topology); !gpus)
        return Error{gpus.error().kind, *clusterName + ": " + gpus.error().message};
    return topology;
}

Result<Problem> buildProblem(const Args &args, const ProblemDefaults &defaults)
{
    auto topology = topologyFromArgs(args);
    if (!topology)
        return topology.error();
    return buildProblem(std::move(topology).value(), args, defaults);
}

Result<Problem> buildProblem(Topology topology, const Args &args, const ProblemDefaults &defaults)
{
    const std::optional<std::string> modelName
        = args.value("model") ? args.value("model") : defaults.model;
    if (!modelName)
        return badInput("--model is required (a catalog name such as llama2-13b, or a model file; "
                        "`hetplan-cli catalog models` lists them)");
    auto model = loadModel(*modelName);
    if (!model)
        return model.error();

    auto workload = workloadFromArgs(args, defaults);
    if (!workload)
        return workload.error();
    return Problem{std::move(topology), std::move(model).value(), std::move(workload).value()};
}

Result<std::unique_ptr<CostModel>> costModelFromArgs(const Args &args,
                                                     std::optional<std::string> fallback)
{
    const std::string name = args.value("cost-model").value_or(fallback.value_or("hetplan"));
    auto kind = costModelKindFromName(name);
    if (!kind)
        return Error{ErrorKind::BadInput, "--cost-model: " + kind.error().message};
    return makeCostModel(*kind);
}

Result<Invocation> prepare(const std::vector<std::string> &words,
                           std::set<std::string> extraOptions, std::set<std::string> extraSwitches)
{
    Args::Spec spec{problemOptions(), std::move(extraSwitches)};
    spec.options.merge(extraOptions);
    spec.options.insert({"planner", "seed", "knob"});
    spec.switches.insert("json");
    auto args = Args::parse(words, spec);
    if (!args)
        return args.error();
    auto problem = buildProblem(*args);
    if (!problem)
        return problem.error();
    auto costModel = costModelFromArgs(*args);
    if (!costModel)
        return costModel.error();
    PlannerKind planner = defaultPlanner(problem->workload.mode);
    if (const auto name = args->value("planner")) {
        auto parsed = plannerKindFromName(*name);
        if (!parsed)
            return Error{ErrorKind::BadInput, "--planner: " + parsed.error().message};
        planner = *parsed;
    }
    auto seed = args->integer("seed", 0, 1 << 30);
    if (!seed)
        return seed.error();
    PlannerOptions options;
    options.seed = static_cast<std::uint64_t>(seed->value_or(1));
    if (const auto knobs = args->value("knob")) {
        auto parsed = parseKnobs(*knobs);
        if (!parsed)
            return parsed.error();
        options.knobs = std::move(parsed).value();
    }
    return Invocation{std::move(args).value(), std::move(problem).value(),
                      std::move(costModel).value(), planner, std::move(options)};
}

int exitCodeFor(const Error &error)
{
    switch (error.kind) {
    case ErrorKind::BadInput:
        return 2;
    case ErrorKind::NoPlanFits:
        return 3;
    case ErrorKind::Cancelled:
    case ErrorKind::Unsupported:
    case ErrorKind::Internal:
        break;
    }
    return 1;
}

int fail(const Error &error)
{
    std::cerr << "hetplan-cli: error: " << error.message << '\n';
    return exitCodeFor(error);
}

} // namespace hetplan::cli
