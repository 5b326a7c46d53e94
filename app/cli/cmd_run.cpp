// hetplan-cli run: a training plan on this machine, one hetplan-worker per rank, on the CPUs
// over Gloo or with --backend cuda on its GPUs over NCCL (docs/runtime.md); or a serving plan's
// replicas serving a request stream on the CPUs (docs/runtime.md, "Serving runs"). The plan is
// compiled and checked here first, so a plan that cannot run is refused before any process
// starts.
#include "app/cli/commands.h"
#include "app/cli/output.h"
#include "app/cli/rank_processes.h"
#include "app/cli/run_results.h"
#include "app/cli/served_print.h"
#include "app/cli/setup.h"
#include "app/cli/signals.h"
#include "core/cost/cost_model.h"
#include "core/io/files.h"
#include "core/io/serving_measurement_json.h"
#include "core/launch/worker_command.h"
#include "runtime/program/scheduler_rank.h"
#include "runtime/serve/request_stream.h"
#include "runtime/serve/served_records.h"
#include "runtime/worker/job.h"

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <unistd.h>

namespace hetplan::cli {
namespace {

namespace fs = std::filesystem;
using runtime::Job;

constexpr std::chrono::milliseconds kStopGrace{3000};
// One process per rank on this machine, each with its own copy of its stage: a plan meant for
// a cluster would fork past what one machine holds. Default of --max-ranks (docs/runtime.md).
constexpr int kDefaultMaxRanks = 256;

// hetplan-worker beside this hetplan-cli (the build and the install put them together).
Result<std::string> workerPath()
{
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec)
        return Error{ErrorKind::Internal, "cannot locate hetplan-cli: " + ec.message()};
    const fs::path worker = self.parent_path() / "hetplan-worker";
    if (::access(worker.c_str(), X_OK) != 0)
        return Error{ErrorKind::Internal, worker.string()
                                              + " is missing or not executable; it is installed "
                                                "beside hetplan-cli"};
    return worker.string();
}

// A fresh private directory for the rendezvous and the per-rank results; removed afterwards.
class RunDirectory
{
public:
    static Result<RunDirectory> create()
    {
        std::error_code ec;
        std::string pattern = (fs::temp_directory_path(ec) / "hetplan-run-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr)
            return Error{ErrorKind::Internal, "cannot create a run directory in "
                                                  + fs::path(pattern).parent_path().string()};
        RunDirectory dir;
        dir.m_path = pattern;
        fs::create_directory(dir.rendezvous(), ec);
        return dir;
    }
    RunDirectory(RunDirectory &&other) noexcept
        : m_path(std::exchange(other.m_path, {}))
    {}
    ~RunDirectory()
    {
        std::error_code ec;
        if (!m_path.empty())
            fs::remove_all(m_path, ec);
    }
    fs::path rendezvous() const { return fs::path(m_path) / "rendezvous"; }
    fs::path result(int rank) const
    {
        return fs::path(m_path) / ("rank-" + std::to_string(rank) + ".json");
    }
    // A serving replica's records, written by its scheduler (runtime/serve/served_records.h).
    fs::path served(int replica) const
    {
        return fs::path(m_path) / ("replica-" + std::to_string(replica) + ".served");
    }

private:
    RunDirectory() = default;
    std::string m_path;
};

struct RunOptions
{
    int maxRanks = kDefaultMaxRanks;
    int iterations = 3;
    int seed = 0;
    double timeoutS = 60;
    std::string dumpWeights;                 // a directory, or empty
    BackendKind backend = BackendKind::Gloo; // hetplan-worker --backend
    // Serving plans only: the request stream (runtime/serve/request_stream.h) and sampling.
    ServeOptions serve;
    std::string weights; // a training run's --dump-weights folder, or empty
};

std::vector<RankProcesses::Launch> launches(const Job &job, const runtime::JobSource &source,
                                            const RunOptions &options, const std::string &worker,
                                            const RunDirectory &dir)
{
    std::vector<RankProcesses::Launch> list;
    for (const runtime::Rank &r : job.program.ranks) {
        WorkerCommand args;
        args.plan = source.planPath;
        args.cluster = source.cluster;
        args.model = source.model;
        args.scale = source.scale;
        args.rank = r.rank;
        args.world = int(job.program.ranks.size());
        args.comm = {dir.rendezvous().string(), "127.0.0.1", options.timeoutS};
        args.iterations = options.iterations;
        args.seed = std::uint64_t(options.seed);
        args.out = dir.result(r.rank).string();
        args.backend = options.backend;
        if (job.plan.workload.mode == Mode::Infer) {
            args.requests = options.serve.stream.requests;
            args.durationS = options.serve.stream.durationS;
            args.rate = options.serve.stream.rate;
            args.trace = options.serve.stream.trace;
            args.temperature = options.serve.temperature;
            args.weights = options.weights;
            args.out
                = runtime::schedulesRequests(r) ? dir.served(r.pipeline).string() : std::string();
        }
        if (!options.dumpWeights.empty())
            args.dumpWeights
                = (fs::path(options.dumpWeights) / ("rank-" + std::to_string(r.rank) + ".weights"))
                      .string();
        list.push_back({"rank " + std::to_string(r.rank), workerCommandLine(worker, args)});
    }
    return list;
}

Result<RunOptions> runOptions(const Args &args)
{
    RunOptions o;
    auto iterations = args.integer("iterations", 1, 1 << 20);
    auto seed = args.integer("seed", 0, INT_MAX);
    auto timeout = args.number("timeout-s", 0.1, 86400);
    auto maxRanks = args.integer("max-ranks", 1, 1 << 16);
    if (!maxRanks)
        return maxRanks.error();
    if (!iterations)
        return iterations.error();
    if (!seed)
        return seed.error();
    if (!timeout)
        return timeout.error();
    o.maxRanks = maxRanks->value_or(o.maxRanks);
    o.iterations = iterations->value_or(o.iterations);
    o.seed = seed->value_or(o.seed);
    o.timeoutS = timeout->value_or(o.timeoutS);
    if (const auto backend = args.value("backend")) {
        auto kind = backendOption(*backend);
        if (!kind)
            return kind.error();
        o.backend = *kind;
    }
    auto serve = serveOptions(args, o.seed);
    if (!serve)
        return serve.error();
    o.serve = std::move(serve).value();
    o.weights = args.value("weights").value_or("");
    if (!o.weights.empty() && !fs::is_directory(o.weights))
        return badInput("--weights " + o.weights
                        + ": not a folder (a training run's "
                          "--dump-weights DIR)");
    o.dumpWeights = args.value("dump-weights").value_or("");
    if (o.backend == BackendKind::Cuda && !o.dumpWeights.empty())
        return badInput("--dump-weights needs --backend gloo: the GPU model's weights stay on "
                        "the device");
    if (!o.dumpWeights.empty()) {
        std::error_code ec;
        fs::create_directories(o.dumpWeights, ec);
        if (!fs::is_directory(o.dumpWeights))
            return badInput("--dump-weights " + o.dumpWeights + ": cannot create the directory");
    }
    return o;
}

} // namespace

int runRun(const std::vector<std::string> &words)
{
    const Args::Spec spec{{"plan", "cluster", "model", "scale", "iterations", "seed", "out",
                           "timeout-s", "dump-weights", "backend", "max-ranks", "requests",
                           "duration", "rate", "trace", "temperature", "weights"},
                          {}};
    auto args = Args::parse(words, spec);
    if (!args)
        return fail(args.error());
    auto planPath = args->required("plan");
    if (!planPath)
        return fail(planPath.error());
    // Checked now, not after the job: a run is never lost to a bad --out. A serving run's
    // --out is a directory.
    const std::optional<std::string> outPath = args->value("out");
    const bool outIsDirectory = outPath && fs::is_directory(*outPath);
    if (!outIsDirectory)
        if (auto out = outputFromArgs(*args); !out)
            return fail(out.error());
    auto scale = args->integer("scale", 1, 1 << 16);
    if (!scale)
        return fail(scale.error());
    auto options = runOptions(*args);
    if (!options)
        return fail(options.error());
    const runtime::JobSource source{*planPath, args->value("cluster"), args->value("model"),
                                    scale->value_or(1), std::nullopt};
    // Everything that can be refused is refused here, before any process starts.
    auto job = runtime::loadJob(source);
    if (!job)
        return fail(job.error());
    if (const std::size_t ranks = job->program.ranks.size(); ranks > std::size_t(options->maxRanks))
        return fail(badInput(*planPath + ": " + std::to_string(ranks)
                             + " ranks, one process each on this machine, is more than --max-ranks "
                             + std::to_string(options->maxRanks)
                             + "; launch it across its hosts (hetplan-cli launch), or raise "
                               "--max-ranks if this machine holds them"));
    const bool serving = job->plan.workload.mode == Mode::Infer;
    if (!serving && !options->weights.empty())
        return fail(badInput("--weights serves a training run's weights: it needs a serving plan"));
    if (!serving && outIsDirectory)
        return fail(badInput("--out " + *outPath
                             + " is a directory; a training run writes its "
                               "measurement to a file"));
    std::optional<ServeSetup> serve; // a serving run's stream and cost model
    if (serving) {
        auto setup = serveSetup(*job, *planPath, options->serve.stream, source.scale);
        if (!setup)
            return fail(setup.error());
        serve = std::move(setup).value();
    }
    auto worker = workerPath();
    if (!worker)
        return fail(worker.error());
    auto dir = RunDirectory::create();
    if (!dir)
        return fail(dir.error());

    std::cout << "hetplan-cli run: " << job->program.ranks.size() << " ranks, model "
              << job->scaled.name << " at scale " << job->scaled.scale << ", ";
    if (serving)
        std::cout << serve->stream.size() << " requests on " << job->plan.pipelines.size()
                  << " replicas" << std::endl;
    else
        std::cout << options->iterations << " iterations" << std::endl;
    // A signal now stops the ranks (RankProcesses::wait) instead of ending this process.
    const StoppableScope stoppable;
    RankProcesses processes(kStopGrace);
    if (auto failure = processes.start(launches(*job, source, *options, *worker, *dir)))
        return fail(Error{ErrorKind::Internal, *failure});
    const std::vector<pid_t> pids = processes.pids();
    for (std::size_t r = 0; r < pids.size(); ++r)
        std::cout << "hetplan-cli run: rank " << r << " is process " << pids[r] << std::endl;
    const RankProcesses::Outcome outcome = processes.wait();
    if (serving) {
        std::vector<ServedRequest> records;
        for (std::size_t p = 0; p < job->plan.pipelines.size(); ++p)
            if (auto read = runtime::readServedRecords(dir->served(int(p)).string()))
                records.insert(records.end(), read->begin(), read->end());
        return finishServed(*job, *planPath, *serve, std::move(records),
                            outcome.ok ? std::string() : outcome.message, outPath);
    }
    if (!outcome.ok) {
        std::cerr << "hetplan-cli: error: run failed: " << outcome.message << '\n';
        return 1;
    }
    std::vector<std::string> results;
    for (const runtime::Rank &r : job->program.ranks)
        results.push_back(dir->result(r.rank).string());
    auto measurement = mergeRankResults(results);
    if (!measurement)
        return fail(measurement.error());
    printMeasurement(std::cout, *measurement);
    if (const auto out = args->value("out"))
        if (Status written = writeMeasurementFile(*out, *measurement); !written)
            return fail(written.error());
    return 0;
}

} // namespace hetplan::cli
