// hetplan-worker: one rank of a training plan, on the CPU with Gloo (docs/runtime.md).
#include "core/io/files.h"
#include "core/io/measurement_json.h"
#include "runtime/worker/executor.h"
#include "runtime/worker/gloo_backend.h"
#include "runtime/worker/rank_output.h"
#include "runtime/worker/stage_model.h"
#include "runtime/worker/worker_args.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>

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
    m.run.backend = "gloo-cpu";
    m.run.planFile = args.job.planPath;
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
    const int r = args->rank;
    setRankBlasThreads(1);
    JobSource source = args->job;
    source.rank = r;
    auto job = loadJob(source);
    if (!job)
        die(r, job.error());
    const JobProgram &program = job->program;
    if (int(program.ranks.size()) != args->world)
        die(r, badInput("--world " + std::to_string(args->world) + " but the plan has "
                        + std::to_string(program.ranks.size()) + " ranks"));
    const Rank &rank = program.ranks[std::size_t(r)];

    const ShardPlacement placement{rank.layerBegin, rank.layerEnd,  rank.tpIndex,
                                   rank.tpDegree,   rank.embedding, rank.head};
    auto model = StageModel::create(job->model, job->plan.workload.train.seqLen, args->job.scale,
                                    placement, args->seed, program.globalBatch);
    if (!model)
        die(r, model.error());
    auto comm = Comm::open(args->comm, r, args->world);
    if (!comm)
        die(r, comm.error());
    if (Status connected = (*comm)->connect(Executor::groupsToConnect(program)); !connected)
        die(r, connected.error());

    GlooBackend backend(**comm);
    Executor executor(program, r, backend, **model);
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
    measured.peakMemoryGiB = backend.peakMemoryGiB();
    if (!args->out.empty()) {
        const Measurement m = rankMeasurement(*args, *job, std::move(measured), losses);
        if (Status written = writeFileAtomic(args->out, writeMeasurement(m)); !written)
            die(r, written.error());
    }
    if (!args->dumpWeights.empty())
        if (Status written = writeWeightDump(args->dumpWeights, (*model)->parameters()); !written)
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
        return runWorker(argc, argv);
    } catch (const std::exception &e) {
        std::cerr << "hetplan-worker: internal error: " << e.what() << '\n';
    } catch (...) {
        std::cerr << "hetplan-worker: internal error: an unknown exception\n";
    }
    return 1;
}
