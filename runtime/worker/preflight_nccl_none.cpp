// openNcclPreflight where this build has no CUDA backend (as gpu_rank_none.cpp).
#include "runtime/worker/preflight_links.h"

namespace hetplan::runtime {

Result<PreflightLinks> openNcclPreflight(const WorkerArgs &, const Job &)
{
    return badInput("--backend cuda: this hetplan-worker was built without the CUDA backend, "
                    "so its pre-flight cannot open NCCL communicators (docs/gpu-host.md); valid "
                    "here: --backend gloo");
}

} // namespace hetplan::runtime
