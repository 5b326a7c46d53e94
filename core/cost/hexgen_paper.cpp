#include "core/cost/hexgen_paper.h"

#include "core/cost/cost_helpers.h"
#include "core/cost/paper_formulas.h"

#include <algorithm>

namespace hetplan {

namespace {

// Symbols of HexGen Table 1: s_in, s_out, H, B_type.
struct Symbols
{
    double promptLen = 0;
    double outputLen = 0;
    double hidden = 0;
    double bytes = 0;
};

Symbols symbolsOf(const Problem &problem)
{
    const InferWorkload &infer = problem.workload.infer;
    return {double(infer.promptLen), double(infer.outputLen), double(problem.model.hidden),
            double(bytesPerElement(infer.precision))};
}

class HexGenTerms final : public StageTerms
{
public:
    StageTiming stageTiming(const Problem &problem, const StageQuery &stage) const override
    {
        const Symbols y = symbolsOf(problem);
        const Topology &topology = problem.topology;
        const double layers = stage.layerEnd - stage.layerBegin;
        const double tp = stage.tp;
        const double h2 = y.hidden * y.hidden;
        StageTiming timing;
        double slowestS = -1;
        // A dp > 1 stage (not in the paper) splits the batch over its TP groups; the stage
        // runs at its slowest group.
        for (int r = 0; r < stage.dp; ++r) {
            const std::span<const int> gpus = replicaGpus(stage, r);
            const double b = replicaShare(stage, r);
            double slowestMemoryBytesPerS = kInfinity;
            double slowestFlopsPerS = kInfinity;
            for (int gpu : gpus) {
                const GpuType &type = topology.gpuType(gpu);
                slowestMemoryBytesPerS
                    = std::min(slowestMemoryBytesPerS, type.memoryBandwidthGBps * 1e9);
                slowestFlopsPerS = std::min(slowestFlopsPerS, type.tflops * 1e12);
            }
            // Eq. 4: max_d 12H²·B·s_out/(|d|·m_d)·l + max_d 24·b·(s_in + s_out)·H²/(|d|·c_d)·l.
            const double scanS
                = 12.0 * h2 * y.bytes * y.outputLen / (tp * slowestMemoryBytesPerS) * layers;
            const double flopsS
                = 24.0 * b * (y.promptLen + y.outputLen) * h2 / (tp * slowestFlopsPerS) * layers;
            // Eq. 5: prefill 4·l exchanges of b·s_in·H·B, decode 4·s_out·l of b·H·B.
            const double tpS = paperExchangeS(topology, gpus, b * y.promptLen * y.hidden * y.bytes)
                                   * 4.0 * layers
                               + paperExchangeS(topology, gpus, b * y.hidden * y.bytes) * 4.0
                                     * y.outputLen * layers;
            if (scanS + flopsS + tpS > slowestS) {
                slowestS = scanS + flopsS + tpS;
                timing.computeS = scanS + flopsS;
                timing.tpCommS = tpS;
            }
        }
        timing.forwardS = timing.computeS + timing.tpCommS;
        return timing;
    }

    void stageMemory(const Problem &problem, const StageQuery &stage, int,
                     std::span<double> bytesPerGpu) const override
    {
        const Symbols y = symbolsOf(problem);
        const double layers = stage.layerEnd - stage.layerBegin;
        const double tp = stage.tp;
        for (int r = 0; r < stage.dp; ++r) {
            const double b = replicaShare(stage, r);
            const double tokens = b * (y.promptLen + y.outputLen);
            // Eq. 7: (12H²·B/|d| + 2·b·(s_in + s_out)·H·B/|d|)·l + 4·b·(s_in + s_out)·H·B.
            const double bytes = (12.0 * y.hidden * y.hidden * y.bytes / tp
                                  + 2.0 * tokens * y.hidden * y.bytes / tp)
                                     * layers
                                 + 4.0 * tokens * y.hidden * y.bytes;
            for (int i = 0; i < stage.tp; ++i)
                bytesPerGpu[size_t(r * stage.tp + i)] = bytes;
        }
    }

    double hopS(const Problem &problem, const StageQuery &from, const StageQuery &to) const override
    {
        if (to.gpus.empty() || from.gpus.empty())
            return 0;
        const Symbols y = symbolsOf(problem);
        double slowestS = 0;
        for (int r = 0; r < to.dp; ++r) {
            const double b = replicaShare(to, r);
            const std::span<const int> gpus = replicaGpus(to, r);
            // Eq. 6: the fastest link, once for the prompt and s_out times for one token.
            const double replicaHopS
                = paperBestLinkS(problem.topology, from.gpus, gpus,
                                 b * y.promptLen * y.hidden * y.bytes)
                  + paperBestLinkS(problem.topology, from.gpus, gpus, b * y.hidden * y.bytes)
                        * y.outputLen;
            slowestS = std::max(slowestS, replicaHopS);
        }
        return slowestS;
    }

    double dataParallelS(const Problem &, const Plan &, const PlanPaths &, const LayerSegments &,
                         std::span<double>) const override
    {
        return 0; // serving replicas never synchronise
    }
};

} // namespace

std::shared_ptr<const StageTerms> hexGenInferenceTerms()
{
    static const auto terms = std::make_shared<const HexGenTerms>();
    return terms;
}

} // namespace hetplan
