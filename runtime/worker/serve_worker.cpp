#include "runtime/worker/serve_worker.h"

#include "runtime/comm/comm.h"
#include "runtime/model/weight_set.h"
#include "runtime/serve/request_stream.h"
#include "runtime/serve/serve_engine.h"
#include "runtime/serve/served_records.h"
#include "runtime/worker/gpu_rank.h"
#include "runtime/worker/stage_model.h"
#include "runtime/worker/weight_dump.h"

#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>

namespace hetplan::runtime {

namespace {

// Every rank of the job: the common start of the request stream's clock.
constexpr const char *kAllGroup = "serve/all";

std::function<double()> clockFrom(std::chrono::steady_clock::time_point start)
{
    return [start] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
}

// Every *.weights file of a training run's --dump-weights folder, assembled into full tensors.
Result<WeightSet> readDumps(const std::string &folder, const ModelConfig &config)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    WeightSet set;
    for (const fs::directory_entry &entry : fs::directory_iterator(folder, ec)) {
        if (entry.path().extension() != ".weights")
            continue;
        auto slices = readWeightDump(entry.path().string());
        if (!slices)
            return slices.error();
        for (const WeightSlice &slice : *slices) {
            const auto tensor = findTensor(config, slice.name);
            if (!tensor || tensor->elements() != slice.fullElements)
                return badInput(entry.path().string() + ": tensor '" + slice.name
                                + "' is not one of this model's at this --scale");
            placeSlice(set, *tensor, {slice.sliceBegin, slice.sliceEnd}, slice.values);
        }
    }
    if (ec)
        return badInput("--weights " + folder + ": " + ec.message());
    if (set.empty())
        return badInput("--weights " + folder
                        + ": no .weights files (hetplan-cli run "
                          "--dump-weights writes them)");
    return set;
}

} // namespace

Status serveJobRank(const WorkerArgs &args, const Job &job, const std::stop_token &stop)
{
    const JobProgram &program = job.program;
    const int world = int(program.ranks.size());
    const Rank &rank = program.ranks[std::size_t(args.rank)];
    const InferWorkload &w = job.plan.workload.infer;
    auto config = scaledModelConfig(job.model, workloadSeqLen(job.plan.workload), args.scale);
    if (!config)
        return config.error();
    const RequestStreamOptions streamOptions{args.requests, args.durationS, args.rate,
                                             args.trace,    args.seed,      args.scale};
    auto stream = makeRequests(Problem{*job.topology, job.model, job.plan.workload}, job.plan,
                               streamOptions);
    if (!stream)
        return stream.error();
    const int scale = args.scale;
    const int promptTokens = std::max(1, w.promptLen / scale);
    const int outputTokens = std::max(1, w.outputLen / scale);
    const ServeShardOptions shardOptions{w.batch, promptTokens + outputTokens};

    WeightSet dumped;
    if (!args.weights.empty()) {
        auto read = readDumps(args.weights, *config);
        if (!read)
            return read.error();
        dumped = std::move(read).value();
    }
    const ShardSpec spec{rank.layerBegin, rank.layerEnd,  rank.tpIndex,
                         rank.tpDegree,   rank.embedding, rank.head};
    const WeightSource weights
        = args.weights.empty() ? seededWeights(config->layers, args.seed) : dumpedWeights(dumped);
    std::optional<ServeShard> cpuShard;
    if (args.backend != BackendKind::Cuda) {
        setRankBlasThreads(1);
        auto shard = ServeShard::create(*config, spec, weights, shardOptions);
        if (!shard)
            return shard.error();
        cpuShard = std::move(shard).value();
    }
    auto comm = Comm::open(args.comm, args.rank, world);
    if (!comm)
        return comm.error();
    std::vector<GroupSpec> groups = serveGroups(program);
    std::vector<int> everyone;
    for (const Rank &r : program.ranks)
        everyone.push_back(r.rank);
    if (world > 1)
        groups.push_back({kAllGroup, everyone});
    if (Status s = (*comm)->connect(groups); !s)
        return s;
    // On the GPU (docs/runtime.md, "Serving runs"): after Gloo, which every rank reaches within
    // moments, NCCL for the TP all-reduces, then the shard; the engine's messages stay on Gloo.
    GpuServeRank gpu;
    if (args.backend == BackendKind::Cuda) {
        GpuServeShard gpuShard{spec, shardOptions.slots, shardOptions.capacityTokens, {}};
        if (!args.weights.empty())
            gpuShard.weights = weights;
        auto opened = openGpuServeRank(args, job, *config, gpuShard);
        if (!opened)
            return opened.error();
        gpu = std::move(opened).value();
    }
    const auto links = glooServeLinks(**comm, program, args.rank);
    const ServeRole role = serveRole(program, args.rank);
    const bool scheduler = role.first() && role.leader;

    ServeOptions options;
    options.sampling = {args.temperature, args.seed};
    options.promptSeed = args.seed;
    // Warm-up: one request of the workload's lengths through the replica before the common
    // start, so that first-touch page faults and lazy initialisation are not in any record.
    options.nowS = clockFrom(std::chrono::steady_clock::now());
    const std::vector<ServingRequest> warmup{{-1, 0.0, promptTokens, outputTokens, role.replica}};
    const auto serve = [&](std::vector<ServingRequest> requests) {
        if (gpu.stage)
            return runServeRank(*gpu.stage, *links, role, std::move(requests), options, stop);
        return runServeRank(*cpuShard, *links, role, std::move(requests), options, stop);
    };
    ServeOutcome warm = serve(scheduler ? warmup : std::vector<ServingRequest>{});
    if (warm.error)
        return *warm.error;

    float token = 0;
    if (world > 1)
        if (Status s = (*comm)->allReduceSum(kAllGroup, &token, 1); !s)
            return s;
    options.nowS = clockFrom(std::chrono::steady_clock::now());
    std::vector<ServingRequest> mine;
    if (scheduler) {
        for (const ServingRequest &r : *stream)
            if (r.replica == role.replica)
                mine.push_back(r);
        std::cout << "replica " << role.replica << ": serving " << mine.size() << " requests"
                  << std::endl;
    }
    // Each completed request journalled at once: a scheduler killed before its last write
    // (a step that outlasts the stop's grace period) keeps the finished requests' records.
    if (scheduler && !args.out.empty())
        options.onCompleted = [&args](const ServedRequest &s) {
            if (Status journalled = appendServedRecord(args.out, s); !journalled)
                std::cerr << "hetplan-worker: " << journalled.error().message << std::endl;
        };
    const ServeOutcome outcome = serve(mine);
    if (scheduler && !args.out.empty())
        if (Status s = writeServedRecords(args.out, outcome.served); !s)
            return s;
    if (scheduler) {
        int completed = 0;
        for (const ServedRequest &s : outcome.served)
            completed += s.completed ? 1 : 0;
        std::cout << "replica " << role.replica << ": " << completed << " of "
                  << outcome.served.size() << " requests completed" << std::endl;
    }
    if (outcome.error)
        return *outcome.error;
    return okStatus();
}

} // namespace hetplan::runtime
