// hetplan-cli export: a plan in the arguments of FlashFlex or HexGen, as a rank layout for a
// person's own trainer, or as an sbatch script (docs/export.md).
#include "app/cli/commands.h"
#include "app/cli/output.h"
#include "app/cli/setup.h"
#include "core/cost/validator.h"
#include "core/io/formats.h"
#include "core/io/hosts_json.h"
#include "core/io/loaders.h"
#include "core/io/plan_export.h"
#include "core/io/slurm_script.h"

#include <climits>
#include <filesystem>
#include <map>

namespace hetplan::cli {
namespace {

namespace fs = std::filesystem;

struct LoadedPlan
{
    std::string path;
    Plan plan;
    Problem problem;
};

// The plan (--plan, resolved against --cluster or the cluster it names) checked against its
// model (--model, else the one it names): a malformed plan is not exported.
Result<LoadedPlan> loadPlan(const Args &args)
{
    auto loaded = planFromArgs(args);
    if (!loaded)
        return loaded.error();
    auto model = loadModel(args.value("model").value_or(loaded->plan.model));
    if (!model)
        return model.error();
    Problem problem{std::move(loaded->topology), std::move(model).value(), loaded->plan.workload};
    // Structure only: memory is the cost model's estimate, not something a launcher checks.
    const auto issues = validatePlan(problem, loaded->plan);
    if (!issues.empty())
        return badInput(loaded->path + ": not a valid plan for its cluster and model: "
                        + issues.front().message);
    return LoadedPlan{std::move(loaded->path), std::move(loaded->plan), std::move(problem)};
}

// --hosts: each machine holding a rank must have an entry; it names the node the ranks use
// and the worker executable there.
struct Hosts
{
    std::vector<std::string> hostOfMachine;
    std::map<std::string, std::string> workerOfHost;
};

Result<Hosts> hostsFromArgs(const Args &args, const std::vector<RankPlacement> &layout,
                            const Cluster &cluster)
{
    Hosts result{std::vector<std::string>(cluster.machines.size()), {}};
    const auto path = args.value("hosts");
    if (!path)
        return result;
    auto hosts = loadHosts(*path);
    if (!hosts)
        return hosts.error();
    for (const RankPlacement &r : layout) {
        const HostEntry *entry = hosts->find(r.machineName);
        if (!entry)
            return badInput(*path + ": hosts: no entry for machine '" + r.machineName
                            + "', which holds rank " + std::to_string(r.rank)
                            + R"( of the plan; add {"machine": ")" + r.machineName
                            + R"(", "host": ...})");
        result.hostOfMachine[std::size_t(r.machine)] = entry->host;
        result.workerOfHost[entry->host] = entry->worker;
    }
    return result;
}

// A file every node reads by the same name: absolute, as the submission directory sees it.
std::string sharedPath(const std::string &path)
{
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        return path; // a bundled name
    const fs::path absolute = fs::absolute(path, ec);
    return ec ? path : absolute.lexically_normal().string();
}

Result<std::string> hexgenText(const LoadedPlan &loaded, const Args &args)
{
    auto replicas = hexgenArguments(loaded.plan, loaded.problem.model);
    if (!replicas)
        return replicas.error();
    auto only = args.integer("pipeline", 0, int(replicas->size()) - 1);
    if (!only)
        return only.error();
    if (*only)
        return (*replicas)[std::size_t(**only)].arguments + "\n";
    std::string text;
    for (std::size_t p = 0; p < replicas->size(); ++p) {
        const HexgenReplica &r = (*replicas)[p];
        text += "# pipeline " + std::to_string(p) + ": one HexGen job, WORLD_SIZE "
                + std::to_string(r.worldSize) + ", RANK = plan rank - "
                + std::to_string(r.firstRank) + " (plan ranks " + std::to_string(r.firstRank) + "-"
                + std::to_string(r.firstRank + r.worldSize - 1) + ")\n" + r.arguments + "\n";
    }
    return text;
}

// --backend, --scale and --iterations: hetplan-worker's, as `hetplan-cli run` takes them.
Status workerOptions(const Args &args, SlurmOptions &options)
{
    for (const char *option : {"backend", "scale", "iterations"})
        if (args.has(option) && !options.command.empty())
            return badInput("--" + std::string(option)
                            + " sets hetplan-worker's options; with --command, put it in the "
                              "command");
    if (const auto backend = args.value("backend")) {
        auto kind = backendOption(*backend);
        if (!kind)
            return kind.error();
        options.worker.backend = *kind;
    }
    auto scale = args.integer("scale", 1, 1 << 16);
    if (!scale)
        return scale.error();
    auto iterations = args.integer("iterations", 1, 1 << 20);
    if (!iterations)
        return iterations.error();
    options.worker.scale = scale->value_or(options.worker.scale);
    options.worker.iterations = iterations->value_or(options.worker.iterations);
    return okStatus();
}

// What the target cannot express is a problem of the plan file: its errors name it.
Result<std::string> ofPlan(const std::string &planPath, Result<std::string> text)
{
    if (!text)
        return Error{text.error().kind, planPath + ": " + text.error().message};
    return text;
}

Result<std::string> exportText(const LoadedPlan &loaded, const std::vector<RankPlacement> &layout,
                               const Hosts &hosts, const Args &args)
{
    const std::string &planPath = loaded.path;
    if (args.has("slurm")) {
        if (args.has("format"))
            return badInput("--slurm and --format are separate exports; give one of them");
        if (args.has("pipeline"))
            return badInput("--pipeline goes with --format hexgen");
        SlurmOptions options;
        options.worker.plan = sharedPath(planPath);
        if (const auto cluster = args.value("cluster"))
            options.worker.cluster = sharedPath(*cluster);
        if (const auto model = args.value("model"))
            options.worker.model = sharedPath(*model);
        options.command = args.value("command").value_or("");
        options.workerOfHost = hosts.workerOfHost;
        options.jobName = args.value("job-name").value_or(options.jobName);
        auto port = args.integer("master-port", 1, 65535);
        if (!port)
            return port.error();
        options.masterPort = port->value_or(options.masterPort);
        if (Status worker = workerOptions(args, options); !worker)
            return worker.error();
        return ofPlan(planPath, slurmScript(layout, options));
    }
    for (const char *option :
         {"command", "job-name", "master-port", "backend", "scale", "iterations"})
        if (args.has(option))
            return badInput("--" + std::string(option) + " goes with --slurm");
    const auto format = args.value("format");
    if (args.has("pipeline") && format != "hexgen")
        return badInput("--pipeline goes with --format hexgen");
    if (!format)
        return badInput("give --format flashflex|hexgen|ranks, or --slurm for an sbatch script");
    if (*format == "flashflex")
        return ofPlan(planPath, flashflexArguments(loaded.plan, loaded.problem.model, layout));
    if (*format == "hexgen")
        return ofPlan(planPath, hexgenText(loaded, args));
    if (*format == "ranks")
        return writeRankLayout(loaded.plan, layout);
    return badInput("--format " + *format + ": valid: flashflex, hexgen, ranks");
}

} // namespace

int runExport(const std::vector<std::string> &words)
{
    const Args::Spec spec{{"plan", "cluster", "model", "format", "hosts", "command", "out",
                           "job-name", "master-port", "pipeline", "backend", "scale", "iterations"},
                          {"slurm"}};
    auto args = Args::parse(words, spec);
    if (!args)
        return fail(args.error());
    if (Status none = args->noPositional(spec); !none)
        return fail(none.error());
    auto out = outputFromArgs(*args);
    if (!out)
        return fail(out.error());
    auto loaded = loadPlan(*args);
    if (!loaded)
        return fail(loaded.error());
    const Topology &topology = loaded->problem.topology;
    auto hosts = hostsFromArgs(*args, rankLayout(loaded->plan, topology), topology.cluster());
    if (!hosts)
        return fail(hosts.error());
    const std::vector<RankPlacement> layout
        = rankLayout(loaded->plan, topology, hosts->hostOfMachine);
    auto text = exportText(*loaded, layout, *hosts, *args);
    if (!text)
        return fail(text.error());
    if (Status written = writeOutput(out->value_or(kStandardOutput), *text); !written)
        return fail(written.error());
    return 0;
}

} // namespace hetplan::cli
