// `hetplan` training terms: compute, TP communication, pipeline hops and memory of one stage.

#include "core/cost/cost_helpers.h"
#include "core/cost/hetplan_comm.h"
#include "core/cost/hetplan_memory.h"
#include "core/cost/hetplan_terms.h"
#include "core/cost/layer_table.h"
#include "core/cost/memory_bound.h"

#include <algorithm>
#include <memory>
#include <optional>

namespace hetplan {

namespace {

struct ComputeS
{
    double forwardS = 0;
    double backwardS = 0;
    double optimizerS = 0; // of backwardS
};

// A replica's compute from its GPUs' measured layer tables (docs/cost-models.md, "Measured
// layers"): per GPU the layers at its share `b` of the micro-batch, the embedding or head per
// token on the end stages, and the optimizer step of the parameters it holds, once per
// iteration and so 1/m of it per micro-batch; the slowest GPU sets the pace. None unless every
// GPU's type has a table measured at this model's shape, sequence length and TP degree.
std::optional<ComputeS> measuredComputeS(const Problem &problem, const StageQuery &stage,
                                         std::span<const int> gpus, double b)
{
    const ModelSpec &model = problem.model;
    const TrainWorkload &train = problem.workload.train;
    const double layers = stage.layerEnd - stage.layerBegin;
    const bool firstStage = stage.stageIndex == 0;
    const bool lastStage = stage.stageIndex + 1 == stage.stageCount;
    const double tokens = b * train.seqLen;
    // What one GPU holds: its TP slice of the layers; the embedding and head are replicated
    // (docs/runtime-model.md).
    const double params = layers * model.paramsPerLayer() / stage.tp
                          + (firstStage ? model.embeddingParams() : 0.0)
                          + (lastStage ? model.headParams() : 0.0);
    ComputeS slowest;
    for (int gpu : gpus) {
        const GpuType &type = problem.topology.gpuType(gpu);
        const MeasuredLayerTable *table = matchingLayerTable(type, model, train.seqLen, stage.tp);
        if (!table)
            return std::nullopt;
        const LayerSeconds layer = layerSecondsAt(*table, b);
        ComputeS c;
        c.forwardS = layers * layer.forwardS;
        c.backwardS = layers * layer.backwardS;
        // The runtime recomputes the attention probabilities (selective) as it was timed; full
        // recomputation reruns each layer's forward as well.
        if (train.recompute == Recompute::Full)
            c.backwardS += layers * layer.forwardS;
        if (firstStage) {
            c.forwardS += tokens * table->embeddingForwardSPerToken;
            c.backwardS += tokens * table->embeddingBackwardSPerToken;
        }
        if (lastStage) {
            c.forwardS += tokens * table->headForwardSPerToken;
            c.backwardS += tokens * table->headBackwardSPerToken;
        }
        c.optimizerS = params * table->optimizerSPerParam / std::max(stage.microBatches, 1);
        c.backwardS += c.optimizerS;
        const double multiplier = tableMultiplier(*table, type);
        c.forwardS *= multiplier;
        c.backwardS *= multiplier;
        c.optimizerS *= multiplier;
        if (c.forwardS + c.backwardS > slowest.forwardS + slowest.backwardS)
            slowest = c;
    }
    return slowest;
}

struct ReplicaTiming
{
    double forwardComputeS = 0;
    double backwardComputeS = 0; // backward plus recomputation
    double forwardTpS = 0;
    double backwardTpS = 0; // backward plus recomputation
    double optimizerS = 0;  // of backwardComputeS
    double totalS() const { return forwardComputeS + backwardComputeS + forwardTpS + backwardTpS; }
};

ReplicaTiming replicaTiming(const Problem &problem, const StageQuery &stage, int replica,
                            const HetPlanParameters &parameters)
{
    const ModelSpec &model = problem.model;
    const TrainWorkload &train = problem.workload.train;
    const std::span<const int> gpus = replicaGpus(stage, replica);
    const double b = replicaShare(stage, replica);
    const double s = train.seqLen;
    const double h = model.hidden;
    const double layers = stage.layerEnd - stage.layerBegin;
    const bool lastStage = stage.stageIndex + 1 == stage.stageCount;

    // Forward FLOPs per layer (Narayanan et al., SC'21, §5.1): 2 per weight per token for
    // the GEMMs (norm vectors are not GEMMs), plus attention scores QKᵀ and their product
    // with V, 2·2·b·s²·h, of which causal masking with FlashAttention skips half: 2·b·s²·h.
    const double gemmParams = model.paramsPerLayer() - 2.0 * h;
    const double attentionFlops = 2.0 * b * s * s * h;
    const double layerForwardFlops = 2.0 * b * s * gemmParams + attentionFlops;
    // The output head (2·V·H per token) runs on the last stage; the embedding is a gather.
    const double headFlops = lastStage ? 2.0 * b * s * double(model.vocab) * h : 0.0;
    const double forwardFlops = layers * layerForwardFlops + headFlops;
    // Backward is twice the forward (input and weight gradients; Narayanan et al.).
    double backwardFlops = 2.0 * forwardFlops;
    // Recomputation (Korthikanti et al., 2022): full reruns each layer's forward; selective
    // reruns the attention core only.
    if (train.recompute == Recompute::Full)
        backwardFlops += layers * layerForwardFlops;
    else if (train.recompute == Recompute::Selective)
        backwardFlops += layers * attentionFlops;

    ReplicaTiming timing;
    if (const auto measured = measuredComputeS(problem, stage, gpus, b)) {
        timing.forwardComputeS = measured->forwardS;
        timing.backwardComputeS = measured->backwardS;
        timing.optimizerS = measured->optimizerS;
    } else {
        // The GEMMs at the group's achieved FLOP/s, and the work besides them at each GPU's
        // achieved memory bandwidth (docs/cost-models.md, "Work besides the GEMMs"); the
        // optimizer runs once per iteration, so each micro-batch carries 1/m of it.
        const GroupRates rates
            = groupRates(problem.topology, gpus, parameters.achievedMemoryBandwidthFraction);
        const double gpuBytesPerS = rates.memoryBytesPerS / double(gpus.size());
        const MemoryBoundBytes moved
            = trainingMemoryBoundBytes(problem, stage, replica, parameters);
        const double optimizerBytes = moved.optimizerBytes / std::max(stage.microBatches, 1);
        timing.forwardComputeS
            = forwardFlops / rates.flopsPerS + transferS(moved.forwardBytes, gpuBytesPerS);
        timing.backwardComputeS = backwardFlops / rates.flopsPerS
                                  + transferS(moved.backwardBytes + optimizerBytes, gpuBytesPerS);
        timing.optimizerS = transferS(optimizerBytes, gpuBytesPerS);
    }

    if (stage.tp > 1) {
        // Each all-reduce carries the b·s·h activations (docs/cost-models.md, "Bytes on the
        // wire").
        const double bytes = b * wireBytes(problem).perSequence;
        const double allReduceS
            = ringAllReduceS(stage.tp, bytes, groupLinks(problem.topology, gpus, stage.tpPath));
        timing.forwardTpS = tpAllReducesPerLayer(train.recompute, false) * layers * allReduceS;
        timing.backwardTpS = tpAllReducesPerLayer(train.recompute, true) * layers * allReduceS;
    }
    return timing;
}

class TrainingTerms final : public StageTerms
{
public:
    explicit TrainingTerms(const HetPlanParameters &parameters)
        : m_parameters(parameters)
    {}

    StageTiming stageTiming(const Problem &problem, const StageQuery &stage) const override
    {
        // A dp > 1 stage runs at its slowest replica (each replica its share of the batch).
        ReplicaTiming slowest;
        double slowestS = -1;
        for (int r = 0; r < stage.dp; ++r) {
            const ReplicaTiming timing = replicaTiming(problem, stage, r, m_parameters);
            if (timing.totalS() > slowestS) {
                slowestS = timing.totalS();
                slowest = timing;
            }
        }
        StageTiming timing;
        timing.forwardS = slowest.forwardComputeS + slowest.forwardTpS;
        timing.backwardS = slowest.backwardComputeS + slowest.backwardTpS;
        timing.computeS = slowest.forwardComputeS + slowest.backwardComputeS;
        timing.tpCommS = slowest.forwardTpS + slowest.backwardTpS;
        timing.optimizerS = slowest.optimizerS;
        return timing;
    }

    void stageMemory(const Problem &problem, const StageQuery &stage, int dpReplicas,
                     std::span<double> bytesPerGpu) const override;

    double hopS(const Problem &problem, const StageQuery &from, const StageQuery &to) const override
    {
        return hopTiming(problem, from, to).totalS;
    }

    HopTiming hopTiming(const Problem &problem, const StageQuery &from,
                        const StageQuery &to) const override
    {
        if (from.gpus.empty() || to.gpus.empty())
            return {};
        const double bytesPerSequence = wireBytes(problem).perSequence;
        const Topology &topology = problem.topology;
        // HexiScale §3.2: the activation goes leader to leader, then the receiving leader
        // broadcasts it in its TP group; the gradient takes the same way back. Into (or back
        // into) a dp > 1 stage, every replica receives its share; the slowest one counts, and
        // replicas behind one machine's network link share it (unlike hexiscale-paper, which
        // charges each transfer as if it had the link to itself).
        double forwardS = 0;
        for (int r = 0; r < to.dp; ++r)
            forwardS = std::max(forwardS, sendAndBroadcastS(topology, from.gpus, replicaGpus(to, r),
                                                            replicaShare(to, r) * bytesPerSequence,
                                                            from.hopPath));
        double backwardS = 0;
        for (int r = 0; r < from.dp; ++r)
            backwardS
                = std::max(backwardS, sendAndBroadcastS(topology, to.gpus, replicaGpus(from, r),
                                                        replicaShare(from, r) * bytesPerSequence,
                                                        from.hopPath));
        HopTiming timing;
        // Each replica of the side with several carries its own rows (docs/runtime.md, "Phases
        // per rank"): into them the loops above priced each alone; out of them, this.
        const auto slowestOwnS = [&](const StageQuery &several, const StageQuery &one) {
            double slowestS = 0;
            for (int r = 0; r < several.dp; ++r)
                slowestS = std::max(slowestS,
                                    sendAndBroadcastS(topology, replicaGpus(several, r), one.gpus,
                                                      replicaShare(several, r) * bytesPerSequence,
                                                      from.hopPath));
            return slowestS;
        };
        if (to.dp > 1 && from.dp == 1) {
            timing.forwardOwnS = forwardS;
            timing.backwardOwnS = slowestOwnS(to, from);
        }
        if (from.dp > 1 && to.dp == 1) {
            timing.forwardOwnS = slowestOwnS(from, to);
            timing.backwardOwnS = backwardS;
        }
        if (to.dp > 1)
            forwardS = std::max(
                forwardS, sharedNetworkLinkS(topology, from, to, bytesPerSequence, from.hopPath));
        if (from.dp > 1)
            backwardS = std::max(
                backwardS, sharedNetworkLinkS(topology, to, from, bytesPerSequence, from.hopPath));
        timing.totalS = forwardS + backwardS;
        timing.forwardS = forwardS;
        return timing;
    }

    double dataParallelS(const Problem &problem, const Plan &plan, const PlanPaths &paths,
                         const LayerSegments &segments, std::span<double> perStageS) const override
    {
        return asymmetricGradientSyncS(problem, plan, paths, segments, perStageS);
    }

private:
    HetPlanParameters m_parameters;
};

void TrainingTerms::stageMemory(const Problem &problem, const StageQuery &stage, int dpReplicas,
                                std::span<double> bytesPerGpu) const
{
    for (int r = 0; r < stage.dp; ++r) {
        const double total
            = trainingStageMemory(problem, stage, dpReplicas, r, m_parameters).totalBytes();
        for (int i = 0; i < stage.tp; ++i)
            bytesPerGpu[size_t(r * stage.tp + i)] = total;
    }
}

} // namespace

std::shared_ptr<const StageTerms> makeHetPlanTrainingTerms(const HetPlanParameters &parameters)
{
    return std::make_shared<const TrainingTerms>(parameters);
}

} // namespace hetplan
