#pragma once

// What a TP group computes at, and the work of a training stage besides its GEMMs: the
// memory-bound kernels (norms, rotary, activations, residual adds, the loss over the
// vocabulary) and the optimizer step, priced from the bytes they move over the GPU's memory
// bandwidth (docs/cost-models.md, "Work besides the GEMMs").

#include "core/cost/cost_parameters.h"
#include "core/cost/problem.h"
#include "core/cost/stage_query.h"

#include <span>

namespace hetplan {

// Achieved rates of a TP group: each GPU works on its 1/tp shard in parallel and the slowest
// sets the pace, so each is the slowest GPU's times the group's size.
struct GroupRates
{
    double flopsPerS = 0;       // tflops × achieved_fraction
    double memoryBytesPerS = 0; // membw_GBps × `memoryBandwidthFraction`
};
GroupRates groupRates(const Topology &topology, std::span<const int> gpus,
                      double memoryBandwidthFraction);

// Bytes one GPU of replica `replica` moves per micro-batch besides its GEMMs' operands.
struct MemoryBoundBytes
{
    double forwardBytes = 0;
    double backwardBytes = 0;  // backward, and the recomputed forward under full recomputation
    double optimizerBytes = 0; // one optimizer step, once per iteration (not per micro-batch)
};
MemoryBoundBytes trainingMemoryBoundBytes(const Problem &problem, const StageQuery &stage,
                                          int replica, const HetPlanParameters &parameters);

} // namespace hetplan
