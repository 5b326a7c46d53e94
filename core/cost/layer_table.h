#pragma once

// Compute from a measured layer table (docs/cost-models.md, "Measured layers"): which table of
// a GPU type a stage's compute rests on, and one layer's time at any micro-batch size.

#include "core/model/gpu_type.h"
#include "core/model/model_spec.h"

namespace hetplan {

// One layer's forward and backward on one TP shard.
struct LayerSeconds
{
    double forwardS = 0;
    double backwardS = 0;
};

// The table of `type` measured at `model`'s shape (modelShapeKey), `seqLen` tokens and TP
// `tp`; null when it has none. The first such table when there are several.
const MeasuredLayerTable *matchingLayerTable(const GpuType &type, const ModelSpec &model,
                                             int seqLen, int tp);

// One layer at `microBatch` sequences (fractional for an uneven DP share): linear between the two
// measured micro-batches around it, linear through the two nearest beyond either end, and
// proportional to the one point of a table that has one. Below the smallest measured
// micro-batch a sequence never costs less than at it (the floor of the extrapolation).
LayerSeconds layerSecondsAt(const MeasuredLayerTable &table, double microBatch);

// How calibration scales a table: its times × table.achievedFraction / type.achievedFraction
// / type.computeScale (1 until calibration moves the type's compute_scale; a cluster calibrated
// before compute_scale existed moved achieved_fraction instead).
double tableMultiplier(const MeasuredLayerTable &table, const GpuType &type);

} // namespace hetplan
