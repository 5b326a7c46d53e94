#pragma once

// What every rank of a training job shares besides its placement, as the CPU and the GPU stage
// take it: the workload's sequence length and optimizer (docs/formats.md, "Workload —
// `hetplan.workload/1`"), the job's
// --scale and seed, and the program's global batch.

#include "core/model/workload.h"

#include <cstdint>

namespace hetplan::runtime {

struct StageRun
{
    int workloadSeqLen = 0;
    int scale = 1;
    std::uint64_t seed = 0;
    int globalBatch = 1;
    Optimizer optimizer = Optimizer::Adam;
};

} // namespace hetplan::runtime
