#pragma once

// What the CPU and the GPU layer probes share (docs/probe.md, "The layer"): the micro-batches a
// layer is timed at, the figure's heading, a pass's times, and the embedding's and head's times
// per token.
// Header only: the GPU probe's library sits below the CPU probe's.

#include "core/io/probe_file.h"
#include "core/launch/probe_command.h"
#include "core/model/measured_layer.h"
#include "runtime/model/model_config.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace hetplan::runtime::probe {

// 1, 2, 4 and `given`, ascending, each once: the points a planner asks about lie between them
// or just beyond (docs/cost-models.md, "Measured layers").
inline std::vector<int> layerMicroBatches(int given)
{
    std::vector<int> microBatches{1, 2, 4, given};
    std::ranges::sort(microBatches);
    microBatches.erase(std::unique(microBatches.begin(), microBatches.end()), microBatches.end());
    return microBatches;
}

// Small values that keep a layer's activations and gradients away from zero and infinity.
inline std::vector<float> filler(std::size_t count, float amplitude)
{
    std::vector<float> v(count);
    for (std::size_t i = 0; i < count; ++i)
        v[i] = amplitude * float(std::sin(0.37 * double(i)));
    return v;
}

// `model` with the widths `config` was built with (after --scale): the shape a table keys on.
inline ModelSpec modelAsRun(const ModelSpec &model, const ModelConfig &config)
{
    ModelSpec ran = model;
    ran.hidden = config.hidden;
    ran.ffnHidden = config.ffnHidden;
    ran.vocab = config.vocab;
    return ran;
}

// A figure of `method` with what it was measured at and no times yet.
inline LayerFigure layerFigureHeading(std::string method, const ModelSpec &model,
                                      const ModelConfig &config, const ProbeCommand &command)
{
    LayerFigure figure;
    figure.method = std::move(method);
    figure.model = model.name;
    figure.modelShape = modelShapeKey(modelAsRun(model, config));
    figure.scale = command.scale;
    figure.seqLen = config.seqLen;
    figure.tp = command.tp;
    return figure;
}

// (with − without) / tokens of the pair's medians, mins and maxes, never below 0: a shard that
// holds the embedding or the head against the layer alone.
inline Spread perToken(const Spread &with, const Spread &without, double tokens)
{
    const auto each = [&](double a, double b) { return std::max(a - b, 0.0) / tokens; };
    Spread s = with;
    s.median = each(with.median, without.median);
    s.min = each(with.min, without.min);
    s.max = each(with.max, without.max);
    s.min = std::min(s.min, s.median);
    s.max = std::max(s.max, s.median);
    return s;
}

// A shard's forward and backward at one micro-batch, per layer it holds.
struct PassTimes
{
    Spread forwardS;
    Spread backwardS;
};

// The embedding's terms: a shard that holds it, `with`, against the layer alone, `layer`, both
// at the given micro-batch of `tokens` tokens.
inline void setEmbeddingPerToken(LayerFigure &figure, const PassTimes &with, const PassTimes &layer,
                                 double tokens)
{
    figure.embeddingForwardSPerToken = perToken(with.forwardS, layer.forwardS, tokens);
    figure.embeddingBackwardSPerToken = perToken(with.backwardS, layer.backwardS, tokens);
}

// The head's terms, as the embedding's.
inline void setHeadPerToken(LayerFigure &figure, const PassTimes &with, const PassTimes &layer,
                            double tokens)
{
    figure.headForwardSPerToken = perToken(with.forwardS, layer.forwardS, tokens);
    figure.headBackwardSPerToken = perToken(with.backwardS, layer.backwardS, tokens);
}

} // namespace hetplan::runtime::probe
