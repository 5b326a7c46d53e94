// A launch spec resolved against its plan (launch_plan.h): the job is loaded and checked here
// exactly as hetplan-worker loads it, so a plan that cannot run is refused before any host is
// contacted.
#include "runtime/launcher/launch_plan.h"

#include "core/io/files.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"
#include "core/plan/transport.h"
#include "runtime/launcher/launch_commands.h"
#include "runtime/program/scheduler_rank.h"
#include "runtime/worker/job.h"

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <random>

namespace hetplan::launch {

namespace {

namespace fs = std::filesystem;

constexpr const char *kPlanFile = "plan.json";
constexpr const char *kClusterFile = "cluster.json";
constexpr const char *kModelFile = "model.json";
constexpr const char *kHostsFile = "hosts.json";
constexpr const char *kTraceFile = "trace.txt";
constexpr const char *kHostsSource = "hosts file";

// Rows a person made without reading a file (the app's Hosts dialog) get the file's checks,
// and every row's identity is checked here, before any host is contacted.
Status checkHosts(const HostsFile &hosts)
{
    if (hosts.hosts.empty())
        return badInput("the hosts file maps no machine to a host; add one entry per machine");
    if (Status rows = checkHostRows(hosts, kHostsSource); !rows)
        return rows;
    return checkIdentityFiles(hosts, kHostsSource);
}

Status checkOptions(const LaunchSpec &spec)
{
    if (spec.scale < 1 || spec.iterations < 1 || spec.seed < 0)
        return badInput("scale and iterations must be at least 1 and the seed not negative");
    if (Status hosts = checkHosts(spec.hosts); !hosts)
        return hosts;
    // The host's `env` would read a program named NAME=value as one more variable.
    if (!spec.command.empty() && spec.command.front().find('=') != std::string::npos)
        return badInput("the command's program \"" + spec.command.front()
                        + "\" contains '='; valid: a program name or path without '=' (wrap it "
                          "as `sh -c '...'`)");
    if (spec.connectTimeoutS < 1 || spec.stopGraceS < 0 || spec.rankTimeoutS <= 0)
        return badInput("the connect timeout must be at least 1 s, the rank timeout positive "
                        "and the stop grace period not negative");
    return okStatus();
}

// The cluster is always sent, so a name that only resolves on this machine (a path, a bundled
// name of another version) means the same on every host; so is the model.
Result<runtime::JobInput> jobInput(const LaunchSpec &spec)
{
    runtime::JobInput input{spec.planText, spec.planName, {},          kClusterFile,
                            std::nullopt,  spec.scale,    std::nullopt};
    if (spec.clusterText.empty()) {
        auto named = planClusterName(spec.planText, spec.planName);
        if (!named)
            return named.error();
        input.clusterName = *named;
    }
    auto cluster = spec.clusterText.empty() ? loadCluster(input.clusterName)
                                            : parseCluster(spec.clusterText, kClusterFile);
    if (!cluster)
        return cluster.error();
    input.cluster = std::move(cluster).value();
    if (!spec.modelText.empty()) {
        auto model = parseModel(spec.modelText, kModelFile);
        if (!model)
            return model.error();
        input.model = std::move(model).value();
    }
    return input;
}

std::string transportVariable(const char *name, const std::optional<Transport> &transport)
{
    return std::string(name) + "=" + (transport ? std::string(transportName(*transport)) : "");
}

// The environment every rank gets; for the person's own command it is all it gets.
std::vector<std::string> rankEnvironment(const runtime::Job &job, const runtime::Rank &rank,
                                         int localRank, const std::string &jobId,
                                         const std::string &masterAddress)
{
    const Stage &stage
        = job.plan.pipelines[std::size_t(rank.pipeline)].stages[std::size_t(rank.stage)];
    return {"RANK=" + std::to_string(rank.rank),
            "WORLD_SIZE=" + std::to_string(job.program.ranks.size()),
            "LOCAL_RANK=" + std::to_string(localRank),
            "MASTER_ADDR=" + masterAddress,
            "HETPLAN_JOB_ID=" + jobId,
            std::string("HETPLAN_PLAN=") + kPlanFile,
            "HETPLAN_PIPELINE=" + std::to_string(rank.pipeline),
            "HETPLAN_STAGE=" + std::to_string(rank.stage),
            "HETPLAN_TP_DEGREE=" + std::to_string(rank.tpDegree),
            transportVariable("HETPLAN_TP_TRANSPORT", stage.transport.tp),
            transportVariable("HETPLAN_PP_TRANSPORT", stage.transport.pp),
            transportVariable("HETPLAN_DP_TRANSPORT", stage.transport.dp)};
}

// A serving rank serves the stream every rank makes from the same options; its replica's
// scheduler writes the replica's records (docs/runtime.md, "Serving runs").
void serveOptions(const LaunchSpec &spec, const runtime::Rank &rank, WorkerCommand &args)
{
    args.requests = spec.serving.requests;
    args.durationS = spec.serving.durationS;
    args.rate = spec.serving.rate;
    args.trace = spec.serving.traceText.empty() ? std::string() : std::string(kTraceFile);
    args.temperature = spec.serving.temperature;
    args.out = runtime::schedulesRequests(rank)
                   ? "replica-" + std::to_string(rank.pipeline) + ".served"
                   : std::string();
}

WorkerCommand workerCommand(const LaunchSpec &spec, const HostEntry &entry, int rank, int world)
{
    WorkerCommand args;
    args.plan = kPlanFile;
    args.cluster = kClusterFile;
    args.model = kModelFile;
    args.scale = spec.scale;
    args.rank = rank;
    args.world = world;
    args.comm.listenAddress = entry.host;
    args.comm.timeoutS = spec.rankTimeoutS;
    args.iterations = spec.iterations;
    args.seed = std::uint64_t(spec.seed);
    args.out = spec.preflightS > 0 ? std::string() : "rank-" + std::to_string(rank) + ".json";
    args.backend = spec.backend;
    args.preflightS = spec.preflightS;
    return args;
}

} // namespace

Result<runtime::Job> loadLaunchJob(const LaunchSpec &spec)
{
    auto input = jobInput(spec);
    if (!input)
        return input.error();
    return runtime::loadJob(*input); // its messages name the plan as the person gave it
}

Result<JobLayout> layoutJob(const LaunchSpec &spec, const std::string &jobId)
{
    if (Status s = checkOptions(spec); !s)
        return s.error();
    auto input = jobInput(spec);
    if (!input)
        return input.error();
    auto job = runtime::loadJob(*input); // its messages name the plan as the person gave it
    if (!job)
        return job.error();
    const bool serving = job->plan.workload.mode == Mode::Infer;
    if (serving && (!spec.command.empty() || spec.preflightS > 0))
        return badInput(spec.planName
                        + ": a serving plan; it is served by hetplan-worker ranks, without "
                          "--command or a pre-flight of its own");

    JobLayout layout;
    layout.jobId = jobId;
    layout.world = int(job->program.ranks.size());
    layout.serving = serving;
    layout.measured = spec.command.empty() && spec.preflightS <= 0 && !serving;
    layout.serveStore = spec.command.empty();
    layout.files = {
        {kPlanFile, spec.planText},
        {kClusterFile, spec.clusterText.empty() ? writeCluster(input->cluster) : spec.clusterText},
        {kModelFile, spec.modelText.empty() ? writeModel(job->model) : spec.modelText},
        {kHostsFile, writeHosts(spec.hosts)}};
    if (serving && !spec.serving.traceText.empty())
        layout.files.push_back({kTraceFile, spec.serving.traceText});
    std::map<std::string, std::size_t> hostIndex; // destination → index in layout.hosts
    std::map<std::string, int> ranksOnMachine;
    std::map<std::string, std::map<std::string, int>> machineRanksOnHost;
    for (const runtime::Rank &rank : job->program.ranks) {
        const HostEntry *entry = spec.hosts.find(rank.machine);
        if (entry == nullptr)
            return badInput("hosts file: no entry for machine '" + rank.machine + "' (rank "
                            + std::to_string(rank.rank) + R"( runs there); add {"machine": ")"
                            + rank.machine + R"(", "host": …} to "hosts")");
        if (layout.rendezvousAddress.empty())
            layout.rendezvousAddress = entry->host;
        const SshTarget target = sshTarget(*entry, spec.connectTimeoutS);
        const std::string destination = destinationOf(target);
        auto [it, added] = hostIndex.try_emplace(destination, layout.hosts.size());
        if (added)
            layout.hosts.push_back(
                {destination, target, entry->worker, jobDirectory(entry->workdir, jobId), {}, 0});
        HostWork &host = layout.hosts[it->second];
        const int localRank = ranksOnMachine[rank.machine]++;
        RankStart start;
        start.rank = rank.rank;
        start.environment = rankEnvironment(*job, rank, localRank, jobId, layout.rendezvousAddress);
        if (spec.command.empty()) {
            start.worker = workerCommand(spec, *entry, rank.rank, layout.world);
            if (serving) {
                serveOptions(spec, rank, *start.worker);
                start.schedulerOf = runtime::schedulesRequests(rank) ? rank.pipeline : -1;
            }
            start.executable = entry->worker;
            start.resultFile = start.worker->out;
        } else {
            start.command = spec.command;
        }
        host.ranks.push_back(std::move(start));
        if (spec.backend == BackendKind::Cuda && spec.command.empty())
            host.gpusNeeded
                = std::max(host.gpusNeeded, ++machineRanksOnHost[destination][rank.machine]);
    }
    return layout;
}

Result<JobLayout> layoutProbe(const LaunchSpec &spec, const ProbeCommand &measure,
                              const std::string &jobId)
{
    if (Status hosts = checkHosts(spec.hosts); !hosts)
        return hosts.error();
    JobLayout layout;
    layout.jobId = jobId;
    layout.files = {{kHostsFile, writeHosts(spec.hosts)}};
    ProbeCommand shared = measure;
    if (fs::is_regular_file(shared.model)) {
        auto text = readTextFile(shared.model);
        if (!text)
            return text.error();
        layout.files.push_back({kModelFile, std::move(text).value()});
        shared.model = kModelFile;
    }
    // A host is probed once, named after its first machine.
    std::vector<const HostEntry *> probed;
    std::map<std::string, bool> seen;
    for (const HostEntry &entry : spec.hosts.hosts)
        if (seen.emplace(destinationOf(sshTarget(entry)), true).second)
            probed.push_back(&entry);
    layout.world = int(probed.size());
    layout.rendezvousAddress = probed.front()->host;
    for (const HostEntry *entry : probed) {
        const int rank = int(layout.hosts.size());
        const auto slash = entry->worker.rfind('/');
        RankStart start;
        start.rank = rank;
        start.executable = slash == std::string::npos
                               ? std::string("hetplan-probe")
                               : entry->worker.substr(0, slash + 1) + "hetplan-probe";
        start.probe = shared;
        start.probe->rank = rank;
        start.probe->world = layout.world;
        start.probe->comm.listenAddress = entry->host;
        start.probe->hostName = entry->machine;
        const SshTarget target = sshTarget(*entry, spec.connectTimeoutS);
        start.probe->out = rank == 0 ? "probe.json" : "";
        start.resultFile = start.probe->out;
        layout.hosts.push_back({destinationOf(target),
                                target,
                                entry->worker,
                                jobDirectory(entry->workdir, jobId),
                                {std::move(start)},
                                0});
    }
    layout.measured = false;
    return layout;
}

agent::RankSpec rankProcess(const RankStart &rank, const std::string &jobDir, int masterPort)
{
    agent::RankSpec process;
    process.rank = rank.rank;
    process.resultFile = rank.resultFile;
    for (const std::string &variable : rank.environment) {
        const auto equals = variable.find('=');
        process.env[variable.substr(0, equals)] = variable.substr(equals + 1);
    }
    process.env["MASTER_PORT"] = std::to_string(masterPort);
    // The ranks reach the store through their agent's socket only (docs/launcher.md,
    // "Rendezvous").
    std::string rendezvous = "unix:" + jobDir;
    rendezvous += "/";
    rendezvous += agent::kStoreSocketName;
    process.argv = rank.command;
    if (rank.worker) {
        WorkerCommand worker = *rank.worker;
        worker.comm.rendezvous = rendezvous;
        process.argv = workerCommandLine(rank.executable, worker);
    } else if (rank.probe) {
        ProbeCommand probe = *rank.probe;
        probe.comm.rendezvous = rendezvous;
        process.argv = probeCommandLine(rank.executable, probe);
    }
    return process;
}

int randomPort()
{
    std::random_device random;
    return std::uniform_int_distribution<int>(20000, 59999)(random);
}

std::string newJobId()
{
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    ::gmtime_r(&now, &utc);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &utc);
    std::random_device random;
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "%06x", unsigned(random() & 0xffffffu));
    return std::string("hp-") + stamp + "-" + suffix;
}

} // namespace hetplan::launch
