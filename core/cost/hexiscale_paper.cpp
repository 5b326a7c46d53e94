#include "core/cost/hexiscale_paper.h"

#include "core/cost/cost_helpers.h"
#include "core/cost/paper_formulas.h"
#include "core/plan/plan.h"
#include "core/plan/transport.h"

#include <algorithm>

namespace hetplan {

namespace {

// Symbols of HexiScale Appendix A: b micro-batch (B_mb), S sequence, H hidden, B bytes per
// element (B_type).
struct Symbols
{
    double sequence = 0;
    double hidden = 0;
    double bytes = 0;
};

Symbols symbolsOf(const Problem &problem)
{
    return {double(problem.workload.train.seqLen), double(problem.model.hidden),
            double(bytesPerElement(problem.workload.train.precision))};
}

double slowestPeakFlopsPerS(const Topology &topology, std::span<const int> gpus)
{
    double slowest = kInfinity;
    for (int gpu : gpus)
        slowest = std::min(slowest, topology.gpuType(gpu).tflops * 1e12);
    return slowest;
}

class HexiScaleTerms final : public StageTerms
{
public:
    StageTiming stageTiming(const Problem &problem, const StageQuery &stage) const override
    {
        const Symbols y = symbolsOf(problem);
        const double layers = stage.layerEnd - stage.layerBegin;
        const double tp = stage.tp;
        double slowestS = -1;
        double computeLayerS = 0;
        double tpLayerS = 0;
        // dp > 1 (docs/cost-models.md): each replica is a TP group with its share of the
        // micro-batch; c is the slowest GPU of that replica. The stage runs at its slowest replica.
        for (int r = 0; r < stage.dp; ++r) {
            const std::span<const int> gpus = replicaGpus(stage, r);
            const double b = replicaShare(stage, r);
            // Eq. 6: 96·b·S·H²·(1 + S/(6H)) / (c·|d|).
            const double computeS = 96.0 * b * y.sequence * y.hidden * y.hidden
                                    * (1.0 + y.sequence / (6.0 * y.hidden))
                                    / (slowestPeakFlopsPerS(problem.topology, gpus) * tp);
            // Eq. 3: 12·max_x Σ_y (α_xy + b·S·H·B / (|d|·β_xy)).
            const double tpS = 12.0
                               * paperExchangeS(problem.topology, gpus,
                                                b * y.sequence * y.hidden * y.bytes, stage.tpPath);
            if (computeS + tpS > slowestS) {
                slowestS = computeS + tpS;
                computeLayerS = computeS;
                tpLayerS = tpS;
            }
        }
        // Eq. 8: l·(compute + TP comm).
        StageTiming timing;
        timing.computeS = layers * computeLayerS;
        timing.tpCommS = layers * tpLayerS;
        // The 96 of eq. 6 is 24 forward + 48 backward + 24 recomputation (Narayanan et al.,
        // SC'21), so forward is 1/4 of the compute; the 12 of eq. 3 is 6 all-reduces
        // (2 forward, 2 backward, 2 recomputation; Megatron), forward 1/3 of the TP comm.
        timing.forwardS = timing.computeS / 4.0 + timing.tpCommS / 3.0;
        timing.backwardS = timing.computeS * 3.0 / 4.0 + timing.tpCommS * 2.0 / 3.0;
        return timing;
    }

    void stageMemory(const Problem &problem, const StageQuery &stage, int,
                     std::span<double> bytesPerGpu) const override
    {
        const Symbols y = symbolsOf(problem);
        const double layers = stage.layerEnd - stage.layerBegin;
        // Eq. 11 per layer: 48·H²·B/|d| + b·S·H·B, with |d| the replica's TP group and b its
        // share.
        for (int r = 0; r < stage.dp; ++r) {
            const double b = replicaShare(stage, r);
            const double bytes = layers
                                 * (48.0 * y.hidden * y.hidden * y.bytes / stage.tp
                                    + b * y.sequence * y.hidden * y.bytes);
            for (int i = 0; i < stage.tp; ++i)
                bytesPerGpu[size_t(r * stage.tp + i)] = bytes;
        }
    }

    double hopS(const Problem &problem, const StageQuery &from, const StageQuery &to) const override
    {
        if (to.gpus.empty() || from.gpus.empty())
            return 0;
        const Symbols y = symbolsOf(problem);
        // Eq. 5, both directions; into a dp > 1 stage, the slowest receiving replica, each
        // receiving its share from the best sender and broadcasting it in its TP group.
        double slowestS = 0;
        for (int r = 0; r < to.dp; ++r) {
            const double bytes = replicaShare(to, r) * y.sequence * y.hidden * y.bytes;
            slowestS = std::max(slowestS,
                                paperSendAndBroadcastS(problem.topology, from.gpus,
                                                       replicaGpus(to, r), bytes, from.hopPath));
        }
        return 2.0 * slowestS;
    }

    double dataParallelS(const Problem &problem, const Plan &plan, const PlanPaths &paths,
                         const LayerSegments &segments, std::span<double> perStageS) const override
    {
        const Symbols y = symbolsOf(problem);
        thread_local std::vector<int> holders;   // D_k: every GPU holding the segment's layers
        thread_local std::vector<double> layerS; // Comm-DP-Layer of each segment
        layerS.assign(size_t(segments.segmentCount()), 0.0);
        for (int segment = 0; segment < segments.segmentCount(); ++segment) {
            // A single replica holding the layers has nothing to synchronise.
            if (segments.replicas(plan, segment) <= 1)
                continue;
            holders.clear();
            PathKind path = PathKind::Widest;
            for (int p = 0; p < segments.pipelineCount; ++p) {
                const int stageIndex = segments.holder(segment, p);
                if (stageIndex < 0)
                    continue;
                const Stage &stage = plan.pipelines[size_t(p)].stages[size_t(stageIndex)];
                path = holders.empty() ? paths.dp(stage) : PlanPaths::shared(path, paths.dp(stage));
                holders.insert(holders.end(), stage.gpus.begin(), stage.gpus.end());
            }
            // Eq. 4: 2·max_x Σ_y (α_xy + 12·H²·B / (|D_k|·β_xy)).
            layerS[size_t(segment)] = 2.0
                                      * paperExchangeS(problem.topology, holders,
                                                       12.0 * y.hidden * y.hidden * y.bytes, path);
        }
        // Eq. 7: every stage synchronises its own layers; the slowest stage bounds DP.
        double slowestS = 0;
        size_t flat = 0;
        for (const Pipeline &pipeline : plan.pipelines)
            for (const Stage &stage : pipeline.stages) {
                const auto [first, last] = segments.segmentsOf(stage.layerBegin, stage.layerEnd);
                double stageS = 0;
                for (int segment = first; segment < last; ++segment)
                    stageS += segments.length(segment) * layerS[size_t(segment)];
                perStageS[flat++] = stageS;
                slowestS = std::max(slowestS, stageS);
            }
        return slowestS;
    }
};

} // namespace

std::shared_ptr<const StageTerms> hexiScaleTrainingTerms()
{
    static const auto terms = std::make_shared<const HexiScaleTerms>();
    return terms;
}

} // namespace hetplan
