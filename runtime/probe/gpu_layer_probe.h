#pragma once

// The GPU half of the layer probe (docs/probe.md, "The layer"). Built only with CUDA.

#include "core/base/result.h"
#include "core/io/probe_file.h"
#include "core/launch/probe_command.h"
#include "core/model/model_spec.h"

namespace hetplan::runtime::probe {

// One transformer layer of the model the GPU runtime trains (runtime/cuda/model, the worker's own
// code: bf16 GEMMs through cuBLAS, its kernels), on TP shard 0 of `tp` on CUDA device `device`, at
// seq-len and --scale as `command` gives them: forward and backward at micro-batch 1, 2, 4 and
// the one given; the optimizer step per parameter; the embedding and the head per token, each as
// the difference of a shard that holds it and the layer alone. Timed with CUDA events on the
// shard's stream, each call's forward and backward apart, in repetitions of 20 or 50 ms after a
// warm-up to the sustained clock (docs/probe.md, "How a figure is timed"), the median of
// `command.repetitions` kept. An error (out of memory at the largest micro-batch) is the caller's
// to report; the other figures of the GPU stand.
Result<LayerFigure> gpuLayer(int device, const ModelSpec &model, const ProbeCommand &command);

} // namespace hetplan::runtime::probe
