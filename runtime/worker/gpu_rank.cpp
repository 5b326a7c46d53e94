#include "runtime/worker/gpu_rank.h"

#include "runtime/worker/cuda_backend.h"
#include "runtime/worker/cuda_stage.h"
#include "runtime/worker/executor.h"
#include "runtime/worker/preflight_links.h"

#include <cstdlib>

namespace hetplan::runtime {

namespace {

// The rank's device and its NCCL communicators, connected.
Result<std::unique_ptr<CudaBackend>> openConnected(const WorkerArgs &args, const Job &job)
{
    // Before NCCL's first use: it reads them once per process.
    for (const auto &[name, value] : {std::pair{"NCCL_IB_HCA", &args.ncclIbHca},
                                      std::pair{"NCCL_SOCKET_IFNAME", &args.ncclSocketIfname}})
        if (!value->empty())
            ::setenv(name, value->c_str(), 1);
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
    // The device first: the stage's weights go to it. Then NCCL, before the stage: every rank
    // gets here within moments of its start, so the unique-id exchange never waits for a
    // peer's shard, whatever its size (docs/runtime.md, "The GPU backend").
    auto backend = openConnected(args, job);
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
    auto backend = openConnected(args, job);
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

} // namespace hetplan::runtime
