#pragma once

// hetplan-worker's GPU half (--backend cuda): the rank's CUDA backend with its NCCL
// communicators connected, and its stage on the GPU: a training stage, or a serving plan's
// stage shard with its KV cache. Built without CUDA, opening one is an error that says so.

#include "runtime/model/model_config.h"
#include "runtime/serve/serve_stage.h"
#include "runtime/serve/weight_source.h"
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

// A serving rank's GPU half (docs/runtime.md, "Serving runs"): the backend's NCCL communicators
// carry the stage's TP all-reduces; the engine's messages between stages go through the host.
struct GpuServeRank
{
    std::unique_ptr<Backend> backend;
    std::shared_ptr<void> tp;          // the shard's TP communicator, over the backend
    std::unique_ptr<ServeStage> stage; // destroyed first
};

struct GpuServeShard
{
    ShardSpec spec;
    int slots = 1;
    int capacityTokens = 0;
    WeightSource weights; // empty: model_init's weights of --seed, made on the device
};

Result<GpuServeRank> openGpuServeRank(const WorkerArgs &args, const Job &job,
                                      const ModelConfig &config, const GpuServeShard &shard);

} // namespace hetplan::runtime
