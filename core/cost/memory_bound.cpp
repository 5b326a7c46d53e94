// A TP group's rates and the memory-bound work of a training stage (docs/cost-models.md, "Work
// besides the GEMMs").

#include "core/cost/memory_bound.h"

#include "core/base/infinity.h"
#include "core/cost/cost_helpers.h"
#include "core/cost/hetplan_memory.h"

#include <algorithm>

namespace hetplan {

namespace {

constexpr double kFloatBytes = 4.0;

} // namespace

GroupRates groupRates(const Topology &topology, std::span<const int> gpus,
                      double memoryBandwidthFraction)
{
    double slowestFlops = kInfinity;
    double slowestBandwidth = kInfinity;
    for (int gpu : gpus) {
        const GpuType &type = topology.gpuType(gpu);
        slowestFlops = std::min(slowestFlops, type.tflops * 1e12 * type.achievedFraction);
        slowestBandwidth
            = std::min(slowestBandwidth, type.memoryBandwidthGBps * 1e9 * memoryBandwidthFraction);
    }
    const double n = double(gpus.size());
    return {slowestFlops * n, slowestBandwidth * n};
}

MemoryBoundBytes trainingMemoryBoundBytes(const Problem &problem, const StageQuery &stage,
                                          int replica, const HetPlanParameters &parameters)
{
    const ModelSpec &model = problem.model;
    const TrainWorkload &train = problem.workload.train;
    const double bytes = bytesPerElement(train.precision);
    const double tokens = replicaShare(stage, replica) * train.seqLen;
    const double layers = stage.layerEnd - stage.layerBegin;
    const bool lastStage = stage.stageIndex + 1 == stage.stageCount;

    // The element-wise kernels between the GEMMs make the tensors a layer keeps for its backward
    // (Korthikanti et al., 2022, §4): in the forward each is written once and read once by the
    // next kernel; in the backward each kernel reads its saved input and its output's gradient
    // and writes its input's gradient. Attention is fused (its scores never reach memory), as
    // the compute term's FLOPs assume.
    const double stash = layerStashBytesPerToken(model, stage.tp, bytes);
    const double layerForward = 2.0 * stash * tokens * layers;
    MemoryBoundBytes m;
    m.forwardBytes = layerForward;
    m.backwardBytes = 1.5 * layerForward;
    if (train.recompute == Recompute::Full)
        m.backwardBytes += layerForward;
    // The loss reads the fp32 logits of the whole vocabulary (the head is replicated over TP)
    // and writes their gradient, in one fused pass.
    if (lastStage)
        m.forwardBytes += tokens * double(model.vocab) * (kFloatBytes + bytes);
    // The optimizer reads and writes every byte of the weights, gradients and optimizer state
    // the GPU holds (the memory model's categories, ZeRO-1 sharding included): Adam and SGD are
    // one pass over them.
    const StageMemoryBytes held
        = trainingStageMemory(problem, stage, stage.dp, replica, parameters);
    m.optimizerBytes = 2.0 * (held.weightBytes + held.gradientBytes + held.optimizerBytes);
    return m;
}

} // namespace hetplan
