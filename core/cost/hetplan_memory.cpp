// The `hetplan` training memory of one GPU, by category (docs/cost-models.md "Memory of a
// training stage").

#include "core/cost/hetplan_memory.h"

#include "core/cost/cost_helpers.h"

#include <algorithm>

namespace hetplan {

namespace {

constexpr double kFloatBytes = 4.0;

struct Widths // per token, on one GPU of a TP group of `tp`
{
    double hidden = 0, query = 0, keyValue = 0, ffn = 0;

    Widths(const ModelSpec &model, double tp)
        : hidden(model.hidden)
        , query(double(model.heads) * model.headDim() / tp)
        , keyValue(double(model.kvHeads) * model.headDim() / tp)
        , ffn(double(model.ffnHidden) / tp)
    {}
};

} // namespace

double layerStashBytesPerToken(const ModelSpec &model, int tp, double elementBytes)
{
    const Widths w(model, tp);
    const double mlpInputs = model.mlp == MlpKind::SwiGlu ? 2.0 * w.ffn : w.ffn;
    return elementBytes * (4.0 * w.hidden + 2.0 * w.query + 2.0 * w.keyValue + mlpInputs)
           + 2.0 * kFloatBytes;
}

double stageParamsPerGpu(const ModelSpec &model, const StageQuery &stage)
{
    const bool firstStage = stage.stageIndex == 0;
    const bool lastStage = stage.stageIndex + 1 == stage.stageCount;
    const double norms = 2.0 * model.hidden; // per layer, replicated over TP
    const double layers = stage.layerEnd - stage.layerBegin;
    return layers * ((model.paramsPerLayer() - norms) / stage.tp + norms)
           + (firstStage ? model.embeddingParams() : 0.0) + (lastStage ? model.headParams() : 0.0);
}

StageMemoryBytes trainingStageMemory(const Problem &problem, const StageQuery &stage,
                                     int dpReplicas, int replica,
                                     const HetPlanParameters &parameters)
{
    const ModelSpec &model = problem.model;
    const TrainWorkload &train = problem.workload.train;
    const double bytes = bytesPerElement(train.precision);
    const Widths w(model, stage.tp);
    const double s = train.seqLen;
    const double layers = stage.layerEnd - stage.layerBegin;
    const bool lastStage = stage.stageIndex + 1 == stage.stageCount;
    StageMemoryBytes m;

    // Mixed precision (ZeRO, Rajbhandari et al., 2020, §3.1): the working copy at `bytes` and an
    // fp32 master copy, fp32 Adam moments (SGD: one momentum). Gradients accumulate in fp32, as
    // Megatron-LM does for bf16 (its distributed optimizer's table: 18 bytes per parameter) and
    // the runtime does. In fp32 training the weights are their own master copy. ZeRO-1 shards
    // the fp32 state over the replicas.
    const double params = stageParamsPerGpu(model, stage);
    const double shards = train.shardOptimizer ? std::max(dpReplicas, 1) : 1;
    const double masterBytes = bytes < kFloatBytes ? kFloatBytes : 0.0;
    const double momentBytes = train.optimizer == Optimizer::Adam ? 8.0 : 4.0;
    m.weightBytes = params * (bytes + masterBytes / shards);
    m.gradientBytes = params * kFloatBytes;
    m.optimizerBytes = params * momentBytes / shards;

    // 1F1B (Narayanan et al., SC'21, §2.2): stage j of p holds min(m, p − j) micro-batches'
    // activations at its peak.
    const double inFlight
        = std::max(std::min(stage.microBatches, stage.stageCount - stage.stageIndex), 1);
    const double tokens = s * replicaShare(stage, replica);
    const double stash = layerStashBytesPerToken(model, stage.tp, bytes);
    // Without recomputation the attention also keeps its score-sized tensors (Korthikanti
    // eq. 2's 5·a·s/(h·t) term, scaled for the element size).
    const double scores = 5.0 * model.heads * s / stage.tp * bytes / 2.0;
    double perMicroBatch = 0;
    double oneLayerMore = 0;
    switch (train.recompute) {
    case Recompute::None:
        perMicroBatch = layers * (stash + scores);
        break;
    case Recompute::Selective:
        perMicroBatch = layers * stash;
        break;
    case Recompute::Full:
        // Only each layer's input is kept (Korthikanti §4.1), plus one layer's activations
        // while it is recomputed for its backward.
        perMicroBatch = layers * w.hidden * bytes;
        oneLayerMore = stash + scores;
        break;
    }
    // The last stage keeps the final norm's input and output, its 1/rms and the logits'
    // gradient; the others keep the activations they sent on.
    perMicroBatch
        += lastStage ? bytes * (2.0 * w.hidden + model.vocab) + kFloatBytes : bytes * w.hidden;
    m.activationBytes = tokens * (inFlight * perMicroBatch + oneLayerMore);

    // One call's buffers (the GPU runtime's scratch, docs/gpu-model.md "Streams and memory"):
    // the fp32 residual stream and partial sums, their `bytes` copies, the FFN and q, k, v in
    // fp32 and at `bytes`, and one head's score matrices per sample; on the last stage the
    // fp32 logits (full vocabulary: the head is replicated) and per-token losses.
    double perToken = 2.0 * kFloatBytes * w.hidden + 2.0 * bytes * w.hidden
                      + w.ffn * (kFloatBytes + 2.0 * bytes)
                      + (w.query + 2.0 * w.keyValue) * (kFloatBytes + bytes) + w.query * bytes;
    if (lastStage)
        perToken += kFloatBytes * (model.vocab + 1.0);
    m.workingBytes = tokens * perToken + tokens * s * (2.0 * kFloatBytes + bytes);

    double overheadGiB = parameters.cudaContextGiB;
    overheadGiB += stage.tp > 1 ? parameters.ncclBuffersGiB : 0.0;
    overheadGiB += stage.stageCount > 1 ? parameters.ncclBuffersGiB : 0.0;
    overheadGiB += dpReplicas > 1 ? parameters.ncclBuffersGiB : 0.0;
    m.overheadBytes = overheadGiB * kBytesPerGiB;
    return m;
}

} // namespace hetplan
