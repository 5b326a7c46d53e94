// openGpuRank where this build has no GPU stage: HETPLAN_CUDA=OFF, no nvcc or NCCL at configure
// time, or no CUDA model (runtime/cuda/model) in the source tree.
#include "runtime/worker/gpu_rank.h"

namespace hetplan::runtime {

Result<GpuRank> openGpuRank(const WorkerArgs &, const Job &, const ShardPlacement &)
{
    return badInput("--backend cuda: this hetplan-worker was built without the CUDA backend "
                    "(configure with CUDA and NCCL found, docs/gpu-host.md); valid here: "
                    "--backend gloo");
}

} // namespace hetplan::runtime
