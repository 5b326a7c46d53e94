#include "runtime/worker/stage_config.h"

namespace hetplan::runtime {

Result<StageConfig> stageConfig(const ModelSpec &spec, const StageRun &run, const ShardPlacement &p)
{
    auto config = scaledModelConfig(spec, run.workloadSeqLen, run.scale);
    if (!config)
        return config.error();
    const ShardSpec shard{p.layerBegin, p.layerEnd, p.tpIndex, p.tpDegree, p.embedding, p.head};
    if (Status valid = validateShard(*config, shard); !valid)
        return valid.error();
    TrainingSetup setup;
    setup.seed = run.seed;
    setup.globalBatch = run.globalBatch;
    setup.optimizer = run.optimizer;
    return StageConfig{std::move(config).value(), shard, setup};
}

ParamView paramView(const TensorLayout &tensor, const ElementRange &slice, float *value,
                    float *grad)
{
    ParamView v;
    v.name = tensor.name;
    v.layer = tensor.layer;
    v.tpSplit = tensor.cut == TpCut::Rows;
    v.embedding = tensor.kind == ParamKind::Embedding;
    v.head = tensor.kind == ParamKind::FinalNorm || tensor.kind == ParamKind::Head;
    v.fullElements = tensor.elements();
    v.sliceBegin = slice.begin;
    v.sliceEnd = slice.end;
    v.value = value;
    v.grad = grad;
    return v;
}

} // namespace hetplan::runtime
