#pragma once

#include "core/base/result.h"
#include "runtime/program/program.h"

#include <optional>

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
    // Compile the ops of this rank only; every other rank's program stays empty (ranks, groups
    // and samples are complete). What a worker needs; checkProgram needs every program.
    // Default: all ranks.
    std::optional<int> rank;
};

// A whole job's programs past this many ops (about 4 GiB) are refused as Unsupported: compile
// one rank at a time (ProgramOptions::rank) and check a smaller rehearsal of the plan instead.
inline constexpr long long kMaxProgramOps = 64'000'000;

// Compiles a training plan into per-rank programs (docs/runtime-program.md): ranks, groups,
// one 1F1B iteration per rank, gradient sync and the optimizer step. A plan the runtime cannot
// execute (one the validator rejects, a TP degree that does not divide the heads, kv_heads or
// FFN width, gradient slices that cannot be aligned) is refused with
// ErrorKind::BadInput and a message naming the pipeline and stage and why; a rank option
// outside the plan's ranks is BadInput too.
Result<JobProgram> compileProgram(const Plan &plan, const ModelSpec &model,
                                  const Topology &topology, const ProgramOptions &options = {});

} // namespace hetplan::runtime
