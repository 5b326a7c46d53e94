#include "runtime/worker/gpu_rank.h"

#include "runtime/worker/cuda_backend.h"
#include "runtime/worker/cuda_stage.h"

namespace hetplan::runtime {

Result<GpuRank> openGpuRank(const WorkerArgs &args, const Job &job, const ShardPlacement &placement)
{
    // The device first: the stage's weights go to it.
    auto backend = CudaBackend::open(args.comm, args.rank, args.world, args.device.value_or(0));
    if (!backend)
        return backend.error();
    auto stage = createCudaStage(job.model, job.plan.workload.train.seqLen, args.job.scale,
                                 placement, args.seed, job.program.globalBatch, **backend,
                                 (*backend)->computeStream());
    if (!stage)
        return stage.error();
    if (Status connected = (*backend)->connect(job.program); !connected)
        return connected.error();
    return GpuRank{std::move(backend).value(), std::move(stage).value()};
}

} // namespace hetplan::runtime
