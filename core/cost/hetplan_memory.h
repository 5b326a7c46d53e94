#pragma once

// The `hetplan` model's memory of one GPU of a training stage, by what holds it
// (docs/cost-models.md "Memory of a training stage"). The categories are those the GPU runtime
// allocates (CudaShard::memoryTable), so a test holds one against the other.

#include "core/cost/cost_parameters.h"
#include "core/cost/problem.h"
#include "core/cost/stage_query.h"

namespace hetplan {

struct StageMemoryBytes
{
    double weightBytes = 0;     // the working copy the GEMMs read, and the fp32 master copy
    double gradientBytes = 0;   // fp32, accumulated over the micro-batches
    double optimizerBytes = 0;  // Adam's two moments (SGD: one momentum)
    double activationBytes = 0; // what the micro-batches in flight keep for their backward
    double workingBytes = 0;    // the buffers of one forward or backward call (logits, scores)
    double overheadBytes = 0;   // CUDA context, NCCL buffers
    double totalBytes() const
    {
        return weightBytes + gradientBytes + optimizerBytes + activationBytes + workingBytes
               + overheadBytes;
    }
};

// What one layer keeps per token for its backward on one GPU of a TP group of `tp` (Korthikanti
// et al., 2022, §4, counted for the real architecture, no dropout): both norms' inputs and
// outputs, q, k, v, the attention output and the MLP's pre-activations at `elementBytes`, and
// each norm's fp32 1/rms. The attention probabilities are recomputed (selective recomputation,
// §4.2), as the GPU runtime does.
double layerStashBytesPerToken(const ModelSpec &model, int tp, double elementBytes);

// Parameters one GPU of the stage holds: its 1/tp of the layers' matrices, the layers' norms
// whole, and on the end stages the whole embedding, final norm and head (replicated over the TP
// group, as the runtime holds them).
double stageParamsPerGpu(const ModelSpec &model, const StageQuery &stage);

// One GPU of replica `replica` of the stage, with ZeRO-1 sharding over `dpReplicas` when the
// workload asks for it.
StageMemoryBytes trainingStageMemory(const Problem &problem, const StageQuery &stage,
                                     int dpReplicas, int replica,
                                     const HetPlanParameters &parameters);

} // namespace hetplan
