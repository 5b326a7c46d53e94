// openGpuRank where this build has no GPU stage: HETPLAN_CUDA=OFF, no nvcc or NCCL at configure
// time, or no CUDA model (runtime/cuda/model) in the source tree.
#include "runtime/worker/gpu_rank.h"

namespace hetplan::runtime {

namespace {

Error noCudaBackend()
{
    return badInput("--backend cuda: this hetplan-worker was built without the CUDA backend "
                    "(configure with CUDA and NCCL found, docs/gpu-host.md); valid here: "
                    "--backend gloo");
}

} // namespace

Result<GpuRank> openGpuRank(const WorkerArgs &, const Job &, const ShardPlacement &)
{
    return noCudaBackend();
}

Result<GpuServeRank> openGpuServeRank(const WorkerArgs &, const Job &, const ModelConfig &,
                                      const GpuServeShard &)
{
    return noCudaBackend();
}

} // namespace hetplan::runtime
