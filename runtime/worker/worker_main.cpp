// hetplan-worker: one rank of a training plan, on the CPU with Gloo or on a GPU with NCCL
// (docs/runtime.md).
#include "base/version.h"
#include "core/cost/cost_model.h"
#include "core/io/files.h"
#include "core/io/measurement_json.h"
#include "core/plan/plan_digest.h"
#include "runtime/agent/agent_run.h"
#include "runtime/comm/listen_address.h"
#include "runtime/model/compute_pace.h"
#include "runtime/worker/executor.h"
#include "runtime/worker/gloo_backend.h"
#include "runtime/worker/gpu_rank.h"
#include "runtime/worker/preflight_rank.h"
#include "runtime/worker/serve_worker.h"
#include "runtime/worker/stage_model.h"
#include "runtime/worker/weight_dump.h"
#include "runtime/worker/worker_args.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string_view>
#include <thread>

namespace {

using namespace hetplan;
using namespace hetplan::runtime;

// Leaves at once: after a failed collective Gloo's buffers may still be posted, and their
// destructors would wait for peers that are gone.
[[noreturn]] void die(int rank, const Error &error)
{
    std::cerr << "hetplan-worker: rank " << rank << ": error: " << error.message << std::endl;
    std::fflush(nullptr);
    std::_Exit(error.kind == ErrorKind::BadInput ? 2 : 1);
}

// The rank's index among the ranks on its machine: its CUDA device unless --device says.
int localRank(const JobProgram &program, int rank)
{
    const std::string &machine = program.ranks[std::size_t(rank)].machine;
    int local = 0;
    for (int i = 0; i < rank; ++i)
        local += program.ranks[std::size_t(i)].machine == machine ? 1 : 0;
    return local;
}

MeasuredRank describeRank(const Rank &r)
{
    MeasuredRank m;
    m.rank = r.rank;
    m.gpu = r.gpuName;
    m.host = r.host;
    m.pipeline = r.pipeline;
    m.stage = r.stage;
    m.replica = r.replica;
    m.tpIndex = r.tpIndex;
    return m;
}

Measurement rankMeasurement(const WorkerArgs &args, const Job &job, MeasuredRank rank,
                            std::vector<double> loss)
{
    Measurement m;
    m.run.backend = args.backend;
    m.run.planFile = args.plan;
    m.run.planDigest = planDigest(job.plan, *job.topology);
    m.run.model = job.model.name;
    m.run.scale = job.scaled.scale;
    m.run.iterations = args.iterations;
    m.run.seed = args.seed;
    m.run.globalBatch = job.program.globalBatch;
    m.run.seqLen = job.scaled.seqLen;
    m.run.hosts = {rank.host.empty() ? std::string("localhost") : rank.host};
    m.ranks = {std::move(rank)};
    m.loss = std::move(loss);
    summarizeMeasurement(m);
    return m;
}

// What the hetplan cost model predicts this rank's GPU holds under the plan as written (the
// full model, not --scale's).
double predictedMemoryGiB(const Job &job, const Rank &rank)
{
    const Problem problem{*job.topology, job.model, job.plan.workload};
    const Evaluation predicted = makeCostModel(CostModelKind::HetPlan)->evaluate(problem, job.plan);
    for (const GpuMemory &m : predicted.memory)
        if (m.gpu == rank.gpu)
            return m.usedGiB;
    return 0;
}

volatile std::sig_atomic_t g_stopSignal = 0;

extern "C" void onStopSignal(int signal)
{
    g_stopSignal = signal;
}

// A serving rank: SIGTERM or SIGINT (hetplan-cli run stopping the run) asks the scheduler to
// fail what it has not finished as cancelled and write its records before it exits.
[[noreturn]] void serve(const WorkerArgs &args, const Job &job)
{
    std::signal(SIGTERM, onStopSignal);
    std::signal(SIGINT, onStopSignal);
    std::stop_source stop;
    std::atomic<bool> done{false};
    std::thread watcher([&] {
        while (!done && g_stopSignal == 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        stop.request_stop();
    });
    const Status served = serveJobRank(args, job, stop.get_token());
    done = true;
    watcher.join();
    if (!served)
        die(args.rank, served.error());
    std::fflush(nullptr);
    std::_Exit(0); // as a training rank: Gloo's teardown may wait for peers that are gone
}

int runWorker(int argc, char **argv)
{
    auto args = parseWorkerArgs(std::vector<std::string>(argv + 1, argv + argc));
    if (!args) {
        std::cerr << "hetplan-worker: error: " << args.error().message << "\n\n" << kWorkerUsage;
        return 2;
    }
    if (args->help) {
        std::cout << kWorkerUsage;
        return 0;
    }
    if (args->version) {
        std::cout << "hetplan-worker " << kVersion << '\n';
        return 0;
    }
    const int r = args->rank;
    // A host of the emulated cluster computes at its speed (docs/emulated-cluster.md).
    auto speed = readEmulatedSpeed();
    if (!speed)
        die(r, speed.error());
    setComputeSpeed(*speed);
    // Before the model is built: the CPU backend listens there (CUDA's ranks use NCCL's own).
    if (args->backend == BackendKind::Gloo)
        if (Status listen = checkListenAddress(args->comm.listenAddress); !listen)
            die(r, listen.error());
    JobSource source = jobSource(*args);
    source.rank = r;
    auto job = loadJob(source);
    if (!job)
        die(r, job.error());
    const JobProgram &program = job->program;
    if (int(program.ranks.size()) != args->world)
        die(r, badInput("--world " + std::to_string(args->world) + " but the plan has "
                        + std::to_string(program.ranks.size()) + " ranks"));
    if (args->backend == BackendKind::Cuda && !args->device)
        args->device = localRank(program, r);
    if (args->preflightS > 0) {
        runPreflightRank(*args, *job,
                         args->backend == BackendKind::Cuda ? openNcclPreflight(*args, *job)
                                                            : openGlooPreflight(*args, *job),
                         std::cout);
        std::fflush(nullptr);
        std::_Exit(0); // as below: peers may be gone
    }
    if (args->backend == BackendKind::Cuda && !args->device)
        args->device = localRank(program, r);
    if (job->plan.workload.mode == Mode::Infer)
        serve(*args, *job);
    const Rank &rank = program.ranks[std::size_t(r)];

    const ShardPlacement placement{rank.layerBegin, rank.layerEnd,  rank.tpIndex,
                                   rank.tpDegree,   rank.embedding, rank.head};
    std::unique_ptr<Comm> comm;
    std::unique_ptr<Backend> backend;
    std::unique_ptr<StageCompute> model;
    if (args->backend == BackendKind::Cuda) {
        auto gpu = openGpuRank(*args, *job, placement);
        if (!gpu)
            die(r, gpu.error());
        backend = std::move(gpu->backend);
        model = std::move(gpu->stage);
    } else {
        setRankBlasThreads(1);
        auto cpu = StageModel::create(job->model, stageRun(*job, *args), placement);
        if (!cpu)
            die(r, cpu.error());
        model = std::move(cpu).value();
        auto opened = Comm::open(args->comm, r, args->world);
        if (!opened)
            die(r, opened.error());
        comm = std::move(opened).value();
        if (Status connected = comm->connect(Executor::groupsToConnect(program)); !connected)
            die(r, connected.error());
        backend = std::make_unique<GlooBackend>(*comm);
    }

    Executor executor(program, r, *backend, *model);
    MeasuredRank measured = describeRank(rank);
    std::vector<double> losses;
    for (int i = 0; i < args->iterations; ++i) {
        auto iteration = executor.runIteration();
        if (!iteration)
            die(r, iteration.error());
        measured.iterations.push_back(iteration->first);
        losses.push_back(iteration->second);
        if (r == 0)
            std::cout << "iteration " << i + 1 << "/" << args->iterations << ": loss "
                      << iteration->second << ", " << iteration->first.wallS << " s" << std::endl;
    }
    measured.peakMemoryGiB = backend->peakMemoryGiB();
    if (args->backend == BackendKind::Cuda)
        measured.predictedMemoryGiB = predictedMemoryGiB(*job, rank);
    if (!args->out.empty()) {
        const Measurement m = rankMeasurement(*args, *job, std::move(measured), losses);
        if (Status written = writeFileAtomic(args->out, writeMeasurement(m)); !written)
            die(r, written.error());
    }
    if (!args->dumpWeights.empty())
        if (Status written = writeWeightDump(args->dumpWeights, model->parameters()); !written)
            die(r, written.error());
    std::fflush(nullptr);
    std::_Exit(0); // skip Gloo's teardown: every peer may already be gone
}

} // namespace

// Errors are reported as results; an exception reaching here is a bug (or a library's
// allocation failure): say so in one line instead of terminating without a word.
int main(int argc, char **argv)
{
    try {
        if (argc > 1 && std::string_view(argv[1]) == "agent")
            return hetplan::agent::runAgent();
        return runWorker(argc, argv);
    } catch (const std::exception &e) {
        std::cerr << "hetplan-worker: internal error: " << e.what() << '\n';
    } catch (...) {
        std::cerr << "hetplan-worker: internal error: an unknown exception\n";
    }
    return 1;
}
