// A launch spec resolved against its plan (launch_plan.h): the job is loaded and checked here
// exactly as hetplan-worker loads it, so a plan that cannot run is refused before any host is
// contacted.
#include "runtime/launcher/launch_plan.h"

#include "core/io/files.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"
#include "core/plan/transport.h"
#include "runtime/launcher/launch_commands.h"
#include "runtime/worker/job.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
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

// A private local folder holding the texts while the job is loaded; removed afterwards.
class LocalFolder
{
public:
    LocalFolder()
    {
        std::error_code ec;
        std::string pattern = (fs::temp_directory_path(ec) / "hetplan-launch-XXXXXX").string();
        if (::mkdtemp(pattern.data()) != nullptr)
            m_path = pattern;
    }
    ~LocalFolder()
    {
        std::error_code ec;
        if (!m_path.empty())
            fs::remove_all(m_path, ec);
    }
    LocalFolder(const LocalFolder &) = delete;
    LocalFolder &operator=(const LocalFolder &) = delete;

    bool ok() const { return !m_path.empty(); }
    Result<std::string> write(const std::string &name, const std::string &content) const
    {
        const std::string path = (fs::path(m_path) / name).string();
        if (Status s = writeFileAtomic(path, content); !s)
            return s.error();
        return path;
    }

private:
    std::string m_path;
};

Status checkOptions(const LaunchSpec &spec)
{
    if (spec.scale < 1 || spec.iterations < 1 || spec.seed < 0)
        return badInput("scale and iterations must be at least 1 and the seed not negative");
    if (spec.hosts.hosts.empty())
        return badInput("the hosts file maps no machine to a host; add one entry per machine");
    if (spec.connectTimeoutS < 1 || spec.stopGraceS < 0 || spec.rankTimeoutS <= 0)
        return badInput("the connect timeout must be at least 1 s, the rank timeout positive "
                        "and the stop grace period not negative");
    return okStatus();
}

// The cluster is always sent, so a name that only resolves on this machine (a path, a bundled
// name of another version) means the same on every host; so is the model.
Result<std::string> clusterText(const LaunchSpec &spec)
{
    if (!spec.clusterText.empty())
        return spec.clusterText;
    auto named = planClusterName(spec.planText, spec.planName);
    if (!named)
        return named.error();
    auto cluster = loadCluster(*named);
    if (!cluster)
        return cluster.error();
    return writeCluster(*cluster);
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

runtime::WorkerArgs workerArgs(const LaunchSpec &spec, const HostEntry &entry, int rank, int world)
{
    runtime::WorkerArgs args;
    args.job = {kPlanFile, kClusterFile, kModelFile, spec.scale, std::nullopt};
    args.rank = rank;
    args.world = world;
    args.comm.listenAddress = entry.host;
    args.comm.timeoutS = spec.rankTimeoutS;
    args.iterations = spec.iterations;
    args.seed = std::uint64_t(spec.seed);
    args.out = "rank-" + std::to_string(rank) + ".json";
    args.backend = spec.backend;
    return args;
}

} // namespace

Result<JobLayout> layoutJob(const LaunchSpec &spec, const std::string &jobId)
{
    if (Status s = checkOptions(spec); !s)
        return s.error();
    auto cluster = clusterText(spec);
    if (!cluster)
        return cluster.error();
    LocalFolder folder;
    if (!folder.ok())
        return Error{ErrorKind::Internal, "cannot create a temporary folder for the plan"};
    auto planPath = folder.write(kPlanFile, spec.planText);
    auto clusterPath = folder.write(kClusterFile, *cluster);
    if (!planPath || !clusterPath)
        return !planPath ? planPath.error() : clusterPath.error();
    runtime::JobSource source{*planPath, *clusterPath, std::nullopt, spec.scale, std::nullopt};
    if (!spec.modelText.empty()) {
        auto modelPath = folder.write(kModelFile, spec.modelText);
        if (!modelPath)
            return modelPath.error();
        source.model = *modelPath;
    }
    auto job = runtime::loadJob(source);
    if (!job)
        return Error{job.error().kind, spec.planName + ": " + job.error().message};

    JobLayout layout;
    layout.jobId = jobId;
    layout.world = int(job->program.ranks.size());
    layout.measured = spec.command.empty();
    layout.redis = spec.command.empty();
    layout.files = {{kPlanFile, spec.planText},
                    {kClusterFile, *cluster},
                    {kModelFile, spec.modelText.empty() ? writeModel(job->model) : spec.modelText},
                    {kHostsFile, writeHosts(spec.hosts)}};
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
            start.worker = workerArgs(spec, *entry, rank.rank, layout.world);
            start.executable = entry->worker;
            start.resultPath = host.jobDir + "/" + start.worker->out;
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

Result<JobLayout> layoutProbe(const LaunchSpec &spec, const std::vector<std::string> &options,
                              const std::string &jobId)
{
    if (spec.hosts.hosts.empty())
        return badInput("the hosts file lists no host");
    JobLayout layout;
    layout.jobId = jobId;
    layout.files = {{kHostsFile, writeHosts(spec.hosts)}};
    std::vector<std::string> passed = options;
    for (std::size_t i = 0; i + 1 < passed.size(); ++i)
        if (passed[i] == "--model" && fs::is_regular_file(passed[i + 1])) {
            auto text = readTextFile(passed[i + 1]);
            if (!text)
                return text.error();
            layout.files.push_back({kModelFile, std::move(text).value()});
            passed[i + 1] = kModelFile;
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
        start.command
            = {slash == std::string::npos ? std::string("hetplan-probe")
                                          : entry->worker.substr(0, slash + 1) + "hetplan-probe",
               "--rank",
               std::to_string(rank),
               "--world",
               std::to_string(layout.world),
               "--listen-address",
               entry->host,
               "--host-name",
               entry->machine};
        start.command.insert(start.command.end(), passed.begin(), passed.end());
        start.commandTakesRendezvous = true;
        const SshTarget target = sshTarget(*entry, spec.connectTimeoutS);
        const std::string jobDir = jobDirectory(entry->workdir, jobId);
        if (rank == 0) {
            start.command.insert(start.command.end(), {"--out", "probe.json"});
            start.resultPath = jobDir + "/probe.json";
        }
        layout.hosts.push_back({destinationOf(target), target, "", jobDir, {std::move(start)}, 0});
    }
    layout.measured = false;
    return layout;
}

std::string rankCommand(const JobLayout &layout, const HostWork &host, const RankStart &rank,
                        int port)
{
    std::vector<std::string> environment = rank.environment;
    environment.push_back("MASTER_PORT=" + std::to_string(port));
    std::vector<std::string> argv = rank.command;
    const std::string rendezvous
        = "redis://" + layout.rendezvousAddress + ":" + std::to_string(port);
    if (rank.commandTakesRendezvous) {
        argv.insert(argv.end(), {"--rendezvous", rendezvous});
    }
    if (rank.worker) {
        runtime::WorkerArgs args = *rank.worker;
        args.comm.rendezvous = rendezvous;
        argv = runtime::workerCommandLine(rank.executable, args);
    }
    return groupCommand(host.jobDir, "rank-" + std::to_string(rank.rank), environment, argv);
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
