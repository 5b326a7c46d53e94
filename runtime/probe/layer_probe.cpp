#include "runtime/probe/layer_probe.h"

#include "core/model/measured_layer.h"
#include "runtime/model/model_shard.h"
#include "runtime/probe/layer_figure.h"
#include "runtime/probe/probe_timing.h"

#include <algorithm>
#include <chrono>

namespace hetplan::runtime::probe {
namespace {

constexpr double kQuickBudgetS = 6;
constexpr double kBudgetS = 20;
// Layers of one shard timed together (at most the model's).
constexpr int kLayersTimed = 4;
// At most this many micro-batches in flight in one repetition (of kRepetitionS, probe_timing.h).
constexpr int kMaxCallsInFlight = 32;

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Forward then backward of micro-batch `samples` on `shard`: an untimed pass first, then up to
// `repetitions` timed ones (at least one) within `budgetS`. A repetition runs `calls` forwards
// (as many micro-batches in flight) then their backwards, so that it lasts about
// kRepetitionS, as a stage's many layers do: on a busy host a call shorter than the
// scheduler's time slice would be timed as if the core were its own.
Result<PassTimes> timePasses(ModelShard &shard, int samples, int repetitions, double budgetS)
{
    const ModelConfig &config = shard.config();
    const double layers = shard.spec().layerEnd - shard.spec().layerBegin;
    const auto values = std::size_t(config.tokens(samples)) * std::size_t(config.hidden);
    const std::vector<float> input
        = shard.spec().hasEmbedding ? std::vector<float>{} : filler(values, 0.5f);
    const std::vector<float> outputGrad
        = shard.spec().hasHead ? std::vector<float>{} : filler(values, 1e-3f);
    SoloTpComm tp;
    const auto passes = [&](int calls, double *forwardS, double *backwardS) -> Status {
        const Clock::time_point start = Clock::now();
        for (int c = 0; c < calls; ++c)
            if (auto out = shard.forward(c, {0, samples}, input, tp); !out)
                return out.error();
        const Clock::time_point middle = Clock::now();
        for (int c = calls - 1; c >= 0; --c)
            if (auto back = shard.backward(c, outputGrad, tp); !back)
                return back.error();
        *forwardS = std::chrono::duration<double>(middle - start).count() / calls / layers;
        *backwardS = secondsSince(middle) / calls / layers;
        return okStatus();
    };
    double forwardS = 0;
    double backwardS = 0;
    if (Status s = passes(1, &forwardS, &backwardS); !s)
        return s.error();
    const int calls
        = std::min(callsPerRepetition(forwardS + backwardS, kRepetitionS), kMaxCallsInFlight);
    std::vector<double> forwards;
    std::vector<double> backwards;
    const Clock::time_point start = Clock::now();
    while (forwards.empty()
           || (int(forwards.size()) < repetitions && secondsSince(start) < budgetS)) {
        if (Status s = passes(calls, &forwardS, &backwardS); !s)
            return s.error();
        forwards.push_back(forwardS);
        backwards.push_back(backwardS);
    }
    shard.zeroGradients();
    return PassTimes{spreadOf(forwards), spreadOf(backwards)};
}

Result<ModelShard> shardOf(const ModelConfig &config, int layers, int tp, bool embedding, bool head,
                           int globalBatch)
{
    TrainingSetup setup;
    setup.globalBatch = globalBatch;
    return ModelShard::create(config, {0, layers, 0, tp, embedding, head}, setup);
}

// The layers timed together: a stage runs many, whose weights and gradients do not all stay in
// a core's cache as one layer's would.
int layersTimed(const ModelConfig &config)
{
    return std::min(config.layers, kLayersTimed);
}

} // namespace

double layerPassGflop(const ModelSpec &model, int seqLen, int tp, int layerSamples, int headSamples)
{
    const double s = seqLen;
    // Narayanan et al., SC'21, §5.1: 2 FLOP per weight per token, causal attention 2·b·s²·h.
    const double layer = (2.0 * s * model.paramsPerLayer() + 2.0 * s * s * model.hidden) / tp;
    const double head = 2.0 * s * double(model.vocab) * model.hidden;
    return 3.0 * (layerSamples * layer + headSamples * head) / 1e9;
}

Result<std::optional<LayerFigure>> cpuLayer(const ModelSpec &model, const ProbeCommand &command)
{
    auto config = scaledModelConfig(model, command.seqLen, command.scale);
    if (!config)
        return config.error();
    const std::vector<int> microBatches = layerMicroBatches(command.microBatch);
    const int largest = microBatches.back();
    const ModelSpec ran = modelAsRun(model, *config);
    if (layersTimed(*config) * layerPassGflop(ran, config->seqLen, command.tp, largest, 0)
            + layerPassGflop(ran, config->seqLen, command.tp, 0, command.microBatch)
        > kMaxLayerPassGflop)
        return std::optional<LayerFigure>{};
    // Each point and each of the embedding, head and optimizer terms gets an equal share.
    const double shareS
        = (command.quick ? kQuickBudgetS : kBudgetS) / double(microBatches.size() + 3);
    setBlasThreads(command.blasThreads);

    LayerFigure figure = layerFigureHeading("runtime-cpu-layer", model, *config, command);

    auto layer = shardOf(*config, layersTimed(*config), command.tp, false, false, largest);
    if (!layer)
        return layer.error();
    PassTimes given;
    for (int b : microBatches) {
        auto times = timePasses(*layer, b, command.repetitions, shareS);
        if (!times)
            return times.error();
        figure.points.push_back({b, times->forwardS, times->backwardS});
        if (b == command.microBatch)
            given = *times;
    }
    const double tokens = double(config->tokens(command.microBatch));
    auto embedding = shardOf(*config, 1, command.tp, true, false, largest);
    if (!embedding)
        return embedding.error();
    auto withEmbedding = timePasses(*embedding, command.microBatch, command.repetitions, shareS);
    if (!withEmbedding)
        return withEmbedding.error();
    setEmbeddingPerToken(figure, *withEmbedding, given, tokens);

    auto head = shardOf(*config, 1, command.tp, false, true, largest);
    if (!head)
        return head.error();
    auto withHead = timePasses(*head, command.microBatch, command.repetitions, shareS);
    if (!withHead)
        return withHead.error();
    setHeadPerToken(figure, *withHead, given, tokens);

    // The optimizer over the head shard's parameters (the layer's slice and the head).
    double params = 0;
    for (const Parameter &p : head->parameters())
        params += double(p.value.size());
    head->optimizerStep();
    std::vector<double> perParamS;
    const Clock::time_point start = Clock::now();
    while (perParamS.empty()
           || (int(perParamS.size()) < command.repetitions && secondsSince(start) < shareS)) {
        const Clock::time_point one = Clock::now();
        head->optimizerStep();
        perParamS.push_back(secondsSince(one) / params);
    }
    figure.optimizerSPerParam = spreadOf(perParamS);
    return std::optional<LayerFigure>{std::move(figure)};
}

} // namespace hetplan::runtime::probe
