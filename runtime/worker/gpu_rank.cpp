#include "runtime/worker/gpu_rank.h"

#include "runtime/cuda/model/cuda_serve_shard.h"
#include "runtime/worker/backend_tp.h"
#include "runtime/worker/cuda_backend.h"
#include "runtime/worker/cuda_stage.h"
#include "runtime/worker/device_tp.h"
#include "runtime/worker/executor.h"
#include "runtime/worker/preflight_links.h"

#include <cstdlib>

namespace hetplan::runtime {

namespace {

// Before NCCL's first use: it reads them once per process.
void setNcclEnvironment(const WorkerArgs &args)
{
    for (const auto &[name, value] : {std::pair{"NCCL_IB_HCA", &args.ncclIbHca},
                                      std::pair{"NCCL_SOCKET_IFNAME", &args.ncclSocketIfname}})
        if (!value->empty())
            ::setenv(name, value->c_str(), 1);
}

// A serving shard's TP all-reduce: the backend's on the stage's TP group, as a training
// stage's (device_tp.h).
struct ServeTp
{
    ServeTp(Backend &backend, std::string group)
        : host(backend, std::move(group), spentS)
        , device(host, backend)
    {}
    double spentS = 0; // unread: a serving rank times whole steps
    BackendTpComm host;
    DeviceTp device;
};

// The device first, then NCCL, before the rank's shard: every rank gets here within moments of
// its start, so the unique-id exchange never waits for a peer's shard, whatever its size
// (docs/runtime.md, "The GPU backend").
Result<std::unique_ptr<CudaBackend>> connectedBackend(const WorkerArgs &args, const Job &job)
{
    setNcclEnvironment(args);
    auto backend = CudaBackend::open(args.comm, args.rank, args.world, args.device.value_or(0));
    if (!backend)
        return backend.error();
    if (Status connected = (*backend)->connect(job.program); !connected)
        return connected.error();
    return backend;
}

} // namespace

Result<GpuRank> openGpuRank(const WorkerArgs &args, const Job &job, const ShardPlacement &placement)
{
    auto backend = connectedBackend(args, job);
    if (!backend)
        return backend.error();
    auto stage = createCudaStage(job.model, stageRun(job, args), placement, **backend,
                                 (*backend)->computeStream());
    if (!stage)
        return stage.error();
    // No rank starts its first step, whose calls have only --timeout-s, while a peer still
    // builds its shard.
    if (Status ready = (*backend)->awaitEveryRankReady(); !ready)
        return ready.error();
    return GpuRank{std::move(backend).value(), std::move(stage).value()};
}

// The pre-flight over NCCL (preflight_links.h): the same device and communicators, no model.
Result<PreflightLinks> openNcclPreflight(const WorkerArgs &args, const Job &job)
{
    auto backend = connectedBackend(args, job);
    if (!backend)
        return backend.error();
    PreflightLinks links;
    links.transport = "nccl";
    links.everyRank = [cuda = backend->get()](double timeoutS) {
        return cuda->barrier(Executor::kWorldGroup, timeoutS);
    };
    links.backend = std::move(backend).value();
    return links;
}

Result<GpuServeRank> openGpuServeRank(const WorkerArgs &args, const Job &job,
                                      const ModelConfig &config, const GpuServeShard &shard)
{
    auto backend = connectedBackend(args, job);
    if (!backend)
        return backend.error();
    const int group = job.program.ranks[std::size_t(args.rank)].tpGroup;
    auto tp = std::make_shared<ServeTp>(
        **backend, group < 0 ? std::string() : job.program.groups[std::size_t(group)].key);
    cuda::CudaServeOptions options;
    options.slots = shard.slots;
    options.capacityTokens = shard.capacityTokens;
    options.seed = args.seed;
    options.weights = shard.weights;
    auto stage = cuda::CudaServeShard::create(config, shard.spec, options,
                                              (*backend)->computeStream(), tp->device);
    if (!stage)
        return stage.error();
    if (Status ready = (*backend)->awaitEveryRankReady(); !ready)
        return ready.error();
    GpuServeRank rank;
    rank.backend = std::move(backend).value();
    rank.tp = std::move(tp);
    rank.stage = std::move(stage).value();
    return rank;
}

} // namespace hetplan::runtime
