// `hetplan` inference terms: HexGen Appendix B's structure (prefill then s_out decode steps
// through each stage, TP all-reduces, PP activations, parameters + KV cache + buffers) with
// the real parameter count, a GQA-sized KV cache and achieved rates.

#include "core/cost/cost_helpers.h"
#include "core/cost/hetplan_comm.h"
#include "core/cost/hetplan_terms.h"
#include "core/cost/memory_bound.h"

#include <algorithm>
#include <memory>

namespace hetplan {

namespace {

// Bytes of K and V per token per layer with grouped-query attention (Ainslie et al., 2023):
// 2 · kv_heads · head_dim elements.
double kvBytesPerTokenLayer(const ModelSpec &model, double bytes)
{
    return 2.0 * model.kvHeads * model.headDim() * bytes;
}

class InferenceTerms final : public StageTerms
{
public:
    explicit InferenceTerms(const HetPlanParameters &parameters)
        : m_parameters(parameters)
    {}

    StageTiming stageTiming(const Problem &problem, const StageQuery &stage) const override
    {
        const ModelSpec &model = problem.model;
        const InferWorkload &infer = problem.workload.infer;
        const double bytes = bytesPerElement(infer.precision);
        const double h = model.hidden;
        const double sIn = infer.promptLen;
        const double sOut = infer.outputLen;
        const double layers = stage.layerEnd - stage.layerBegin;
        const bool lastStage = stage.stageIndex + 1 == stage.stageCount;
        const double gemmParams = model.paramsPerLayer() - 2.0 * h;
        const double headGemmParams = lastStage ? double(model.vocab) * h : 0.0;
        const double weightBytes
            = (layers * model.paramsPerLayer() + headGemmParams) * bytes / stage.tp;
        // Σ_{t=1..s_out} (s_in + t): cached tokens attended over the decode steps.
        const double decodeContext = sIn * sOut + sOut * (sOut + 1.0) / 2.0;

        StageTiming timing;
        double slowestS = -1;
        for (int r = 0; r < stage.dp; ++r) {
            const std::span<const int> gpus = replicaGpus(stage, r);
            const double b = replicaShare(stage, r);
            const GroupRates rates
                = groupRates(problem.topology, gpus, m_parameters.achievedMemoryBandwidthFraction);
            // Prefill: 2 FLOPs per weight per prompt token, causal attention 2·b·s_in²·h
            // (half of QKᵀ and AV), logits for the last prompt token; a roofline against
            // one scan of the weights.
            const double prefillFlops
                = layers * (2.0 * b * sIn * gemmParams + 2.0 * b * sIn * sIn * h)
                  + 2.0 * b * headGemmParams;
            const double prefillS
                = std::max(prefillFlops / rates.flopsPerS, weightBytes / rates.memoryBytesPerS);
            // Decode: every step scans the weights and the KV cache (HexGen eq. 4's first
            // term, made GQA-sized) and does 2 FLOPs per weight per sequence plus attention
            // over the cache, 4·b·ctx·h; a roofline over the phase.
            const double decodeFlops = sOut * (2.0 * b * (layers * gemmParams + headGemmParams))
                                       + layers * 4.0 * b * h * decodeContext;
            const double decodeBytes
                = sOut * weightBytes
                  + layers * b * decodeContext * kvBytesPerTokenLayer(model, bytes) / stage.tp;
            const double decodeS
                = std::max(decodeFlops / rates.flopsPerS, decodeBytes / rates.memoryBytesPerS);
            double tpS = 0;
            if (stage.tp > 1) {
                // Megatron: two all-reduces per layer per forward, of the prompt's
                // activations in prefill and of one token's per decode step.
                const GroupLinks links = groupLinks(problem.topology, gpus);
                tpS = 2.0 * layers * ringAllReduceS(stage.tp, b * sIn * h * bytes, links)
                      + 2.0 * layers * sOut * ringAllReduceS(stage.tp, b * h * bytes, links);
            }
            if (prefillS + decodeS + tpS > slowestS) {
                slowestS = prefillS + decodeS + tpS;
                timing.computeS = prefillS + decodeS;
                timing.tpCommS = tpS;
            }
        }
        timing.forwardS = timing.computeS + timing.tpCommS;
        return timing;
    }

    void stageMemory(const Problem &problem, const StageQuery &stage, int,
                     std::span<double> bytesPerGpu) const override
    {
        const ModelSpec &model = problem.model;
        const InferWorkload &infer = problem.workload.infer;
        const double bytes = bytesPerElement(infer.precision);
        const double tokensPerSequence = double(infer.promptLen) + infer.outputLen;
        const double layers = stage.layerEnd - stage.layerBegin;
        const bool firstStage = stage.stageIndex == 0;
        const bool lastStage = stage.stageIndex + 1 == stage.stageCount;
        const double params = layers * model.paramsPerLayer()
                              + (firstStage ? model.embeddingParams() : 0.0)
                              + (lastStage ? model.headParams() : 0.0);
        double overheadGiB = m_parameters.cudaContextGiB;
        overheadGiB += stage.tp > 1 ? m_parameters.ncclBuffersGiB : 0.0;
        overheadGiB += stage.stageCount > 1 ? m_parameters.ncclBuffersGiB : 0.0;
        for (int r = 0; r < stage.dp; ++r) {
            const double b = replicaShare(stage, r);
            // HexGen eq. 7 with the real parameter count and a GQA-sized KV cache split over
            // the TP group (kv heads are divided among its ranks), plus its 4 activation
            // buffers of b·(s_in + s_out)·h.
            const double total
                = params * bytes / stage.tp
                  + layers * b * tokensPerSequence * kvBytesPerTokenLayer(model, bytes) / stage.tp
                  + 4.0 * b * tokensPerSequence * model.hidden * bytes + overheadGiB * kBytesPerGiB;
            for (int i = 0; i < stage.tp; ++i)
                bytesPerGpu[size_t(r * stage.tp + i)] = total;
        }
    }

    double hopS(const Problem &problem, const StageQuery &from, const StageQuery &to) const override
    {
        if (from.gpus.empty() || to.gpus.empty())
            return 0;
        const InferWorkload &infer = problem.workload.infer;
        const double tokenBytes = double(problem.model.hidden) * bytesPerElement(infer.precision);
        // HexGen eq. 6 (the prompt's activations once, one token's per decode step), sent
        // leader to leader and broadcast in the receiving TP group (HexiScale §3.2).
        const Topology &topology = problem.topology;
        double slowestS = 0;
        for (int r = 0; r < to.dp; ++r) {
            const double b = replicaShare(to, r);
            const std::span<const int> gpus = replicaGpus(to, r);
            const double replicaS
                = sendAndBroadcastS(topology, from.gpus, gpus, b * infer.promptLen * tokenBytes)
                  + infer.outputLen * sendAndBroadcastS(topology, from.gpus, gpus, b * tokenBytes);
            slowestS = std::max(slowestS, replicaS);
        }
        return slowestS;
    }

    double dataParallelS(const Problem &, const Plan &, const PlanPaths &, const LayerSegments &,
                         std::span<double>) const override
    {
        return 0; // serving replicas never synchronise
    }

private:
    HetPlanParameters m_parameters;
};

} // namespace

std::shared_ptr<const StageTerms> makeHetPlanInferenceTerms(const HetPlanParameters &parameters)
{
    return std::make_shared<const InferenceTerms>(parameters);
}

} // namespace hetplan
