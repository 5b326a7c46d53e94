#pragma once

#include "core/base/result.h"
#include "runtime/program/program.h"

namespace hetplan {
struct ModelSpec;
class Topology;
} // namespace hetplan

namespace hetplan::runtime {

struct ProgramOptions
{
    // The model is run with its FFN width (and head dimension, vocabulary, sequence length)
    // divided by `scale` (`hetplan-worker --scale`): TP degrees and gradient slices must divide
    // the scaled FFN width. Default: 1, the model as its file describes it.
    int scale = 1;
};

// Compiles a training plan into per-rank programs (docs/runtime-program.md): ranks, groups,
// one 1F1B iteration per rank, gradient sync and the optimizer step. A plan the runtime cannot
// execute (one the validator rejects, a TP degree that does not divide the heads, kv_heads or
// FFN width, gradient slices that cannot be aligned, a serving plan) is refused with
// ErrorKind::BadInput and a message naming the pipeline and stage and why.
Result<JobProgram> compileProgram(const Plan &plan, const ModelSpec &model,
                                  const Topology &topology, const ProgramOptions &options = {});

} // namespace hetplan::runtime
