#pragma once

// The model a job trains, as `hetplan-cli run` and every rank agree on it. BLAS-free, so that
// hetplan-cli can load a job without linking the model's kernels (signals.h says why).

#include "core/base/result.h"
#include "core/model/model_spec.h"

#include <string>

namespace hetplan::runtime {

// The model as trained: the spec shrunk by --scale (model_config.h explains the rule).
struct ScaledModel
{
    std::string name;
    int hidden = 0;
    int seqLen = 0; // tokens per sample after scaling
    int scale = 1;
};

// Refuses (BadInput, naming the field or --scale) a model that cannot be built at `scale`.
Result<ScaledModel> scaleModel(const ModelSpec &spec, int workloadSeqLen, int scale);

} // namespace hetplan::runtime
