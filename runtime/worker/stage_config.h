#pragma once

// The model configuration one stage runs, the same for the CPU and the GPU stage: the plan's
// model scaled by --scale (runtime/model/model_config.h), checked against the rank's placement.

#include "core/model/model_spec.h"
#include "runtime/model/model_config.h"
#include "runtime/model/model_tensors.h"
#include "runtime/worker/stage_compute.h"
#include "runtime/worker/stage_run.h"

namespace hetplan::runtime {

struct StageConfig
{
    ModelConfig model;
    ShardSpec shard;
    TrainingSetup setup;
};

Result<StageConfig> stageConfig(const ModelSpec &spec, const StageRun &run,
                                const ShardPlacement &placement);

// A parameter slice of either shard as gradient sync and the weight dump see it.
ParamView paramView(const TensorLayout &tensor, const ElementRange &slice, float *value,
                    float *grad);

} // namespace hetplan::runtime
