#include "runtime/worker/gpu_rank.h"

#include "runtime/worker/cuda_backend.h"
#include "runtime/worker/cuda_stage.h"

#include <cstdlib>

namespace hetplan::runtime {

Result<GpuRank> openGpuRank(const WorkerArgs &args, const Job &job, const ShardPlacement &placement)
{
    // Before NCCL's first use: it reads them once per process.
    for (const auto &[name, value] : {std::pair{"NCCL_IB_HCA", &args.ncclIbHca},
                                      std::pair{"NCCL_SOCKET_IFNAME", &args.ncclSocketIfname}})
        if (!value->empty())
            ::setenv(name, value->c_str(), 1);
    // The device first: the stage's weights go to it. Then NCCL, before the stage: every rank
    // gets here within moments of its start, so the unique-id exchange never waits for a
    // peer's shard, whatever its size (docs/runtime.md, "The GPU backend").
    auto backend = CudaBackend::open(args.comm, args.rank, args.world, args.device.value_or(0));
    if (!backend)
        return backend.error();
    if (Status connected = (*backend)->connect(job.program); !connected)
        return connected.error();
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

} // namespace hetplan::runtime
