#pragma once

#include "core/base/result.h"
#include "core/io/probe_file.h"
#include "core/launch/probe_command.h"
#include "core/model/model_spec.h"

#include <optional>

namespace hetplan::runtime::probe {

// One transformer layer of the model the CPU backend trains (runtime/model, the worker's own
// code, `blasThreads` BLAS threads), on TP shard 0 of `tp`, at seq-len and --scale as
// `command` gives them: forward and backward at micro-batch 1, 2, 4 and the one given, timed
// over a shard of a few layers and given per layer; the
// optimizer step per parameter; the embedding and the head per token, each as the difference
// of a shard that holds it and the layer alone (docs/probe.md, "The layer"). An untimed call
// first, then `repetitions` timed ones, each point within a share of a time budget (6 s with
// --quick, 20 s without) after its first. None where one pass of those layers at the largest
// micro-batch and of the head at the given one is above kMaxLayerPassGflop: a model that size
// is not rehearsed on a CPU (run it at --scale), and timing it would take minutes.
Result<std::optional<LayerFigure>> cpuLayer(const ModelSpec &model, const ProbeCommand &command);

// 20 GFLOP: about a second on one core.
inline constexpr double kMaxLayerPassGflop = 20;

// The FLOP of one forward and backward pass (3× the forward) of one layer at `layerSamples`
// sequences and of the output head at `headSamples`, on one TP shard.
double layerPassGflop(const ModelSpec &model, int seqLen, int tp, int layerSamples,
                      int headSamples);

} // namespace hetplan::runtime::probe
