#pragma once

#include "runtime/model/model_config.h"
#include "runtime/model/weight_set.h"

#include <vector>

namespace hetplan::runtime {

struct ReferenceResult
{
    std::vector<double> lossPerIteration; // the global mean loss of each iteration, before its step
    WeightSet finalWeights;               // every tensor after the last step
};

// The yardstick of every distributed run: one process, the whole model (T = 1, all layers,
// embedding and head), the whole global batch of `setup` processed micro-batch by micro-batch
// (`microBatch` samples each, the last one smaller when it does not divide), `iterations` Adam
// steps. A distributed run of the same config and setup must give the same losses and weights
// up to fp32 summation order.
Result<ReferenceResult> referenceRun(const ModelConfig &config, const TrainingSetup &setup,
                                     int microBatch, int iterations);

} // namespace hetplan::runtime
