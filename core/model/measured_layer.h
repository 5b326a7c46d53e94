#pragma once

// A transformer layer of the runtime's own code, timed by hetplan-probe on one device of a type
// (docs/probe.md, "The layer"; docs/formats.md, "GPU type"): the figure the `hetplan`
// cost model prices compute from where it matches the stage (docs/cost-models.md, "Measured
// layers").

#include "core/model/model_spec.h"

#include <string>
#include <vector>

namespace hetplan {

// One layer's times on one TP shard at one micro-batch size (micro-batch × seq-len tokens).
struct LayerTimes
{
    int microBatch = 1;
    double forwardS = 0;
    double backwardS = 0; // input and weight gradients, the attention probabilities recomputed

    bool operator==(const LayerTimes &) const = default;
};

// What a layer table was measured at, and what it holds besides the layer.
struct MeasuredLayerTable
{
    std::string model;      // the model's name, for people
    std::string modelShape; // modelShapeKey of the model as it ran (after --scale): the key
    int seqLen = 1;         // tokens per sequence as it ran
    int tp = 1;
    std::vector<LayerTimes> points; // ascending micro-batch, at least one
    // One optimizer step, per parameter element this device holds.
    double optimizerSPerParam = 0;
    // Per token of a micro-batch, on the first stage (token embedding) and the last (final norm,
    // output head and loss).
    double embeddingForwardSPerToken = 0;
    double embeddingBackwardSPerToken = 0;
    double headForwardSPerToken = 0;
    double headBackwardSPerToken = 0;
    // The type's achieved_fraction when the table was imported; the table's times are scaled by
    // this / achieved_fraction (and divided by the type's compute_scale, calibration's figure).
    double achievedFraction = 1;
    std::string source; // the probe file and host it came from

    bool operator==(const MeasuredLayerTable &) const = default;
};

// The shape of a model as the runtime builds it, the key a table matches on: "h128 f512 a16
// kv16 v6282 gelu". A model scaled by --scale has another shape than the full one.
std::string modelShapeKey(const ModelSpec &model);

} // namespace hetplan
