#include "runtime/worker/stage_model.h"

#include "runtime/model/model_shard.h"
#include "runtime/worker/stage_config.h"

namespace hetplan::runtime {

void setRankBlasThreads(int threads)
{
    setBlasThreads(threads);
}

struct StageModel::Impl
{
    ModelShard shard;
};

StageModel::StageModel(ScaledModel scaled, std::unique_ptr<Impl> impl)
    : m_scaled(std::move(scaled))
    , m_impl(std::move(impl))
{}

StageModel::~StageModel() = default;

Result<std::unique_ptr<StageModel>> StageModel::create(const ModelSpec &spec, const StageRun &run,
                                                       const ShardPlacement &p)
{
    auto stage = stageConfig(spec, run, p);
    if (!stage)
        return stage.error();
    auto shard = ModelShard::create(stage->model, stage->shard, stage->setup);
    if (!shard)
        return shard.error();
    auto impl = std::make_unique<Impl>(Impl{std::move(shard).value()});
    const ModelConfig &c = stage->model;
    ScaledModel scaled{c.name, c.hidden, c.seqLen, c.scale};
    return std::unique_ptr<StageModel>(new StageModel(std::move(scaled), std::move(impl)));
}

std::size_t StageModel::activationFloats(int rows) const
{
    return std::size_t(rows) * std::size_t(m_scaled.seqLen) * std::size_t(m_scaled.hidden);
}

Result<double> StageModel::forward(int microBatch, int firstRow, int rowCount,
                                   std::span<const float> input, TpComm &tp, Floats &output)
{
    auto out = m_impl->shard.forward(microBatch, SampleSpan{firstRow, rowCount}, input, tp);
    if (!out)
        return out.error();
    output = Floats::hold(std::move(out->activations));
    return out->lossContribution;
}

Result<Floats> StageModel::backward(int microBatch, std::span<const float> outputGrad, TpComm &tp)
{
    auto inputGrad = m_impl->shard.backward(microBatch, outputGrad, tp);
    if (!inputGrad)
        return inputGrad.error();
    return Floats::hold(std::move(inputGrad).value());
}

Status StageModel::optimizerStep()
{
    m_impl->shard.optimizerStep();
    return okStatus();
}

std::vector<ParamView> StageModel::parameters()
{
    std::vector<ParamView> views;
    for (Parameter &p : m_impl->shard.parameters())
        views.push_back(paramView(p.tensor, p.slice, p.value.data(), p.grad.data()));
    return views;
}

std::size_t StageModel::bytesHeld() const
{
    return m_impl->shard.bytesHeld();
}

} // namespace hetplan::runtime
