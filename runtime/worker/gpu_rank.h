#pragma once

// hetplan-worker's GPU half (--backend cuda): the rank's CUDA backend with its NCCL
// communicators connected, and its stage on the GPU. Built without CUDA, opening one is an
// error that says so.

#include "runtime/worker/backend.h"
#include "runtime/worker/job.h"
#include "runtime/worker/stage_compute.h"
#include "runtime/worker/worker_args.h"

#include <memory>

namespace hetplan::runtime {

struct GpuRank
{
    std::unique_ptr<Backend> backend;
    std::unique_ptr<StageCompute> stage; // destroyed before the backend
};

Result<GpuRank> openGpuRank(const WorkerArgs &args, const Job &job,
                            const ShardPlacement &placement);

} // namespace hetplan::runtime
