#pragma once

// The GPU stage: the CUDA model shard (runtime/cuda/model/cuda_shard.h) behind StageCompute.
// The shard keeps activations in bf16; the executor holds them as fp32 (backend.h's Floats),
// converted on the compute stream at the shard's edges, and the backend sends them as bf16
// (docs/runtime.md, "Bytes on the wire"), so the round trip loses nothing.

#include "core/model/model_spec.h"
#include "runtime/worker/stage_compute.h"
#include "runtime/worker/stage_run.h"

#include <cstdint>
#include <memory>

struct CUstream_st;

namespace hetplan::runtime {

// `backend` allocates the stage's outputs (device memory) and must outlive the stage; the
// shard computes on `compute`.
Result<std::unique_ptr<StageCompute>> createCudaStage(const ModelSpec &spec, const StageRun &run,
                                                      const ShardPlacement &placement,
                                                      Backend &backend, CUstream_st *compute);

} // namespace hetplan::runtime
