#include "app/cli/setup.h"

#include "core/base/no_fit.h"
#include "core/io/catalog_json.h"
#include "core/io/cluster_check.h"
#include "core/io/files.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"

#include <cmath>
#include <iostream>
#include <map>
#include <sstream>
#include <sys/stat.h>

namespace hetplan::cli {
namespace {

bool isRegularFile(const std::string &path)
{
    struct stat info
    {
    };
    return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

// --cluster names a bundled example that is used as such (no local file of that name).
bool bundledClusterUsed(const std::string &name)
{
    return findExample(name, ExampleKind::Cluster).has_value() && !isRegularFile(name);
}

// The bundled workload that goes with the cluster's own name, when the cluster came from a
// file (a copy of an example keeps the example's name inside).
std::optional<std::string> bundledWorkloadNotApplied(const std::string &clusterArg)
{
    if (!isRegularFile(clusterArg))
        return std::nullopt;
    auto text = readTextFile(clusterArg);
    if (!text)
        return std::nullopt;
    auto cluster = parseCluster(*text, clusterArg);
    for (const std::string &name : {clusterArg, cluster ? cluster->name : std::string()})
        if (!name.empty() && findExample(name, ExampleKind::Workload))
            return name;
    return std::nullopt;
}

Result<Workload> baseWorkload(const Args &args, const ProblemDefaults &defaults,
                              WorkloadOrigin &origin)
{
    if (const auto path = args.value("workload")) {
        if (isRegularFile(*path)) {
            auto text = readTextFile(*path);
            if (!text)
                return text.error();
            auto file = parseWorkloadFile(*text, *path);
            if (!file)
                return file.error();
            origin.source = "file " + *path;
            origin.defaults = file->defaulted;
            return file->workload;
        }
        origin.source = "the bundled workload '" + *path + "'";
        return loadWorkload(*path);
    }
    if (defaults.workload) {
        origin.source = defaults.workloadSource;
        return *defaults.workload;
    }
    const std::optional<std::string> cluster = args.value("cluster");
    if (cluster && bundledClusterUsed(*cluster)) {
        if (const auto example = findExample(*cluster, ExampleKind::Workload)) {
            origin.source = "the bundled workload of example '" + *cluster + "'";
            return parseWorkload(example->text, example->path);
        }
    }
    origin.source = "defaults";
    if (cluster)
        if (const auto name = bundledWorkloadNotApplied(*cluster))
            origin.notes.push_back("the bundled workload '" + *name
                                   + "' was NOT applied: it goes with the bundled cluster only; "
                                     "add --workload "
                                   + *name + " to use it");
    const Workload workload;
    const std::span<const WorkloadField> fields = workloadFields(workload.mode);
    origin.defaults.insert(fields.begin(), fields.end());
    return workload;
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

// Fields the command line set no longer come from a default; a mode switched by --mode
// takes every field of the new mode from defaults, since the source described the other mode.
void noteFlags(const Args &args, Mode sourceMode, Mode mode, WorkloadOrigin &origin)
{
    constexpr std::pair<const char *, WorkloadField> kFlags[]{
        {"global-batch", WorkloadField::GlobalBatch},
        {"micro-batch", WorkloadField::MicroBatch},
        {"seq-len", WorkloadField::SeqLen},
        {"prompt-len", WorkloadField::PromptLen},
        {"output-len", WorkloadField::OutputLen},
        {"request-rate", WorkloadField::RequestRate},
        {"slo", WorkloadField::Slo}};
    bool any = mode != sourceMode;
    if (mode != sourceMode) {
        const std::span<const WorkloadField> fields = workloadFields(mode);
        origin.defaults = std::set<WorkloadField>(fields.begin(), fields.end());
    }
    for (const auto &[flag, field] : kFlags) {
        if (!args.has(flag))
            continue;
        any = true;
        origin.defaults.erase(field);
    }
    if (any)
        origin.source += " with command-line overrides";
}

Status checkWorkload(const Workload &workload, const ModelSpec &model)
{
    if (workload.mode == Mode::Train) {
        const TrainWorkload &train = workload.train;
        if (model.maxSeqLen > 0 && train.seqLen > model.maxSeqLen)
            return badInput("seq_len (--seq-len or the workload file): "
                            + std::to_string(train.seqLen) + " is longer than model '" + model.name
                            + "' allows (max_seq_len " + std::to_string(model.maxSeqLen) + ")");
        for (int micro : train.microBatchSizes)
            if (micro > train.globalBatch)
                return badInput("micro_batch (--micro-batch or the workload file) "
                                + std::to_string(micro) + " is larger than global_batch "
                                + std::to_string(train.globalBatch)
                                + "; a micro-batch is a part of the global batch");
        return okStatus();
    }
    const InferWorkload &infer = workload.infer;
    if (model.maxSeqLen > 0 && infer.promptLen + infer.outputLen > model.maxSeqLen)
        return badInput("prompt_len + output_len (--prompt-len, --output-len or the workload "
                        "file): "
                        + std::to_string(infer.promptLen + infer.outputLen)
                        + " is longer than model '" + model.name + "' allows (max_seq_len "
                        + std::to_string(model.maxSeqLen) + ")");
    return okStatus();
}

Result<Workload> workloadFromArgs(const Args &args, const ProblemDefaults &defaults,
                                  WorkloadOrigin &origin)
{
    auto workload = baseWorkload(args, defaults, origin);
    if (!workload)
        return workload;
    const Mode sourceMode = workload->mode;
    if (const auto mode = args.value("mode")) {
        if (*mode == "train")
            workload->mode = Mode::Train;
        else if (*mode == "infer")
            workload->mode = Mode::Infer;
        else
            return badInput("--mode: '" + *mode + "' is not a mode; valid: train, infer");
    }
    noteFlags(args, sourceMode, workload->mode, origin);
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

Result<Topology> topologyFromArgs(const Args &args,
                                  const std::optional<std::string> &fallbackCluster)
{
    const auto clusterName = args.value("cluster") ? args.value("cluster") : fallbackCluster;
    if (!clusterName)
        return badInput("--cluster is required (a bundled example such as case-study, or a "
                        "cluster file; `hetplan-cli catalog examples` lists them)");
    Result<Cluster> cluster = Error{};
    if (isRegularFile(*clusterName)) {
        // A person's own file wins over a bundled name; say so when both exist.
        if (findExample(*clusterName, ExampleKind::Cluster))
            std::cerr << "hetplan-cli: note: '" << *clusterName
                      << "' is both a local file and a bundled example; using the local file "
                         "(and not the example's bundled workload)\n";
        auto text = readTextFile(*clusterName);
        if (!text)
            return text.error();
        cluster = parseCluster(*text, *clusterName);
    } else {
        cluster = loadCluster(*clusterName);
    }
    if (!cluster)
        return cluster.error();
    auto topology = Topology::build(*cluster, builtinGpuCatalog());
    if (!topology)
        return Error{topology.error().kind, *clusterName + ": " + topology.error().message};
    if (Status gpus = checkHasGpus(*topology); !gpus)
        return Error{gpus.error().kind, *clusterName + ": " + gpus.error().message};
    return topology;
}

Result<Problem> buildProblem(const Args &args, const ProblemDefaults &defaults,
                             WorkloadOrigin *origin)
{
    auto topology = topologyFromArgs(args);
    if (!topology)
        return topology.error();
    return buildProblem(std::move(topology).value(), args, defaults, origin);
}

Result<Problem> buildProblem(Topology topology, const Args &args, const ProblemDefaults &defaults,
                             WorkloadOrigin *origin)
{
    const std::optional<std::string> modelName
        = args.value("model") ? args.value("model") : defaults.model;
    if (!modelName)
        return badInput("--model is required (a catalog name such as llama2-13b, or a model file; "
                        "`hetplan-cli catalog models` lists them)");
    auto model = loadModel(*modelName);
    if (!model)
        return model.error();

    WorkloadOrigin ignored;
    auto workload = workloadFromArgs(args, defaults, origin ? *origin : ignored);
    if (!workload)
        return workload.error();
    if (Status valid = checkWorkload(*workload, *model); !valid)
        return valid.error();
    return Problem{std::move(topology), std::move(model).value(), std::move(workload).value()};
}

Result<std::unique_ptr<CostModel>> costModelFromArgs(const Args &args,
                                                     const std::optional<std::string> &fallback)
{
    const std::string name = args.value("cost-model").value_or(fallback.value_or("hetplan"));
    auto kind = costModelKindFromName(name);
    if (!kind)
        return Error{ErrorKind::BadInput, "--cost-model: " + kind.error().message};
    return makeCostModel(*kind);
}

namespace {

// compare's --planners (default: every planner of the mode); other commands run `planner`.
Result<std::vector<PlannerKind>> plannersFromArgs(const Args &args, const Args::Spec &spec,
                                                  PlannerKind planner, Mode mode)
{
    const auto list = args.value("planners");
    if (!list && spec.options.contains("planners"))
        return plannersFor(mode);
    if (!list)
        return std::vector<PlannerKind>{planner};
    std::vector<PlannerKind> kinds;
    std::stringstream in(*list);
    std::string name;
    while (std::getline(in, name, ',')) {
        auto kind = plannerKindFromName(name);
        if (!kind)
            return Error{ErrorKind::BadInput, "--planners: " + kind.error().message};
        kinds.push_back(*kind);
    }
    if (kinds.empty())
        return badInput("--planners: expected a comma-separated list of planner names");
    return kinds;
}

// --knob for the planners a command runs: each setting goes to every one of them that takes
// it; a setting none of them takes is an error listing what they do take.
Status applyKnobs(PlannerParameters &parameters, const std::vector<PlannerKind> &kinds,
                  const std::string &text)
{
    if (kinds.size() == 1)
        return setPlannerParameters(parameters, kinds.front(), text);
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        const std::string name = item.substr(0, item.find('='));
        bool taken = false;
        std::string valid;
        for (PlannerKind kind : kinds) {
            valid += (valid.empty() ? "" : "; ") + std::string(plannerName(kind)) + ":";
            for (const ParameterSpec &spec : plannerParameters(kind))
                valid += " " + std::string(spec.name);
            if (!plannerParameter(parameters, kind, name))
                continue;
            if (Status set = setPlannerParameters(parameters, kind, item); !set)
                return set;
            taken = true;
        }
        if (!taken)
            return badInput("no planner run here has a parameter '" + name + "'; valid: " + valid);
    }
    return okStatus();
}

} // namespace

Result<Invocation> prepare(const std::vector<std::string> &words,
                           std::set<std::string> extraOptions, std::set<std::string> extraSwitches)
{
    Args::Spec spec{problemOptions(), std::move(extraSwitches)};
    spec.options.merge(extraOptions);
    spec.options.insert({"planner", "seed", "knob", "time-limit"});
    spec.switches.insert("json");
    auto args = Args::parse(words, spec);
    if (!args)
        return args.error();
    if (Status none = args->noPositional(spec); !none)
        return none.error();
    WorkloadOrigin origin;
    auto problem = buildProblem(*args, {}, &origin);
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
    auto planners = plannersFromArgs(*args, spec, planner, problem->workload.mode);
    if (!planners)
        return planners.error();
    auto seed = args->integer("seed", 0, 1 << 30);
    if (!seed)
        return seed.error();
    // A week at most: beyond it a limit is a typo, not a plan.
    auto timeLimit = args->number("time-limit", 0.001, 7 * 24 * 3600);
    if (!timeLimit)
        return timeLimit.error();
    PlannerOptions options;
    options.seed = static_cast<std::uint64_t>(seed->value_or(1));
    options.timeLimitS = timeLimit->value_or(0);
    if (const auto knobs = args->value("knob"))
        if (Status set = applyKnobs(options.parameters, *planners, *knobs); !set)
            return Error{ErrorKind::BadInput, "--knob: " + set.error().message};
    return Invocation{std::move(args).value(),
                      std::move(problem).value(),
                      std::move(costModel).value(),
                      planner,
                      std::move(planners).value(),
                      std::move(options),
                      std::move(origin)};
}

Result<PlanFromArgs> planFromArgs(const Args &args)
{
    auto path = args.required("plan");
    if (!path)
        return path.error();
    auto text = readTextFile(*path);
    if (!text)
        return text.error();
    std::optional<std::string> planCluster;
    auto named = planClusterName(*text, *path);
    if (!named && !args.has("cluster"))
        return named.error(); // the plan cannot be read: say so, not that --cluster is missing
    if (named && !named->empty())
        planCluster = *named;
    auto topology = topologyFromArgs(args, planCluster);
    if (!topology)
        return topology.error();
    auto plan = parsePlan(*text, *path, *topology);
    if (!plan)
        return plan.error();
    return PlanFromArgs{*path, std::move(plan).value(), std::move(topology).value()};
}

int exitCodeFor(const Error &error)
{
    switch (error.kind) {
    case ErrorKind::BadInput:
    case ErrorKind::Unsupported: // the message says what to use instead
        return 2;
    case ErrorKind::NoPlanFits:
        return 3;
    case ErrorKind::Cancelled:
    case ErrorKind::Internal:
        break;
    }
    return 1;
}
int fail(const Error &error)
{
    std::cerr << "hetplan-cli: error: " << error.message << '\n';
    if (error.noFit)
        for (const std::string &line : noFitLines(*error.noFit))
            std::cerr << "  " << line << '\n';
    return exitCodeFor(error);
}

void warn(const std::string &message)
{
    if (!message.empty())
        std::cerr << "hetplan-cli: warning: " << message << '\n';
}

} // namespace hetplan::cli
