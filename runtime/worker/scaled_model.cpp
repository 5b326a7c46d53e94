#include "runtime/worker/scaled_model.h"

#include "runtime/model/model_config.h"

namespace hetplan::runtime {

Result<ScaledModel> scaleModel(const ModelSpec &spec, int workloadSeqLen, int scale)
{
    auto config = scaledModelConfig(spec, workloadSeqLen, scale);
    if (!config)
        return config.error();
    return ScaledModel{config->name, config->hidden, config->seqLen, config->scale};
}

} // namespace hetplan::runtime
