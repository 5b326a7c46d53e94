#pragma once

#include "core/cost/cost_model.h"
#include "core/plan/plan.h"
#include "core/planners/hexiscale/gpu_groups.h"
#include "core/planners/search_reporter.h"

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace hetplan::hexiscale {

// A pipeline stage before layers are known: one TP group inside one machine (dp = 1).
struct StageShape
{
    std::vector<int> gpus; // flat Topology indices
    int id = -1;           // interned by SearchContext; equal GPU lists share an id
};

// A pipeline under construction: ordered stages and the layer count of each.
struct PipelineDraft
{
    std::vector<StageShape> stages;
    std::vector<int> layers; // one per stage, each >= 1, summing to the model's layers
};

// Per micro-batch closed-form shape of one pipeline (HexiScale Appendix A, eq. 9): the time of
// m micro-batches is sumS + (m − 1) · bottleneckS.
struct PipelineShapeCost
{
    double sumS = 0;
    double bottleneckS = 0;
    bool fits = true;
    double timeS(int microBatches) const { return sumS + (microBatches - 1) * bottleneckS; }
};

// What every step of the search shares for one planning call: the problem, the cost model and
// caches of stage and hop estimates, so that repeated questions about the same GPU set, layer
// count and micro-batch cost an array lookup (the planner asks them millions of times).
// Not thread-safe; one per planning call.
class SearchContext
{
public:
    SearchContext(const Problem &problem, const CostModel &costModel);

    const Problem &problem() const { return m_problem; }
    const CostModel &costModel() const { return m_costModel; }
    int layerCount() const { return m_problem.model.layers; }
    double tflops(int gpu) const { return m_tflops[static_cast<size_t>(gpu)]; }

    // The search's stop conditions (a stop request, the time limit), which every long loop of
    // the search polls; without a reporter nothing stops early.
    void watch(const SearchReporter &reporter) { m_reporter = &reporter; }
    bool shouldStop() const { return m_reporter && m_reporter->shouldStop(); }

    NeighbourCache &neighbourCache() { return m_neighbours; }
    // splitGpus (gpu_groups.h) remembered by its question: the same GPUs split into as many
    // parts under the same cut option and balance again get the first answer, whatever the seed
    // (docs/planners.md, "METIS calls"). Deterministic, as the first answer is.
    Result<std::vector<std::vector<int>>> split(std::span<const int> gpus, int parts,
                                                CutOption option, int ufactor, std::uint64_t seed);

    StageShape makeStage(std::vector<int> gpus);
    bool tpAllowed(const StageShape &stage);

    struct StageCost
    {
        double timeS = 0; // per micro-batch: compute + TP comm, forward and backward
        bool fits = true;
    };
    // The stage holding `layers` layers at position stageIndex of stageCount.
    StageCost stageCost(const StageShape &stage, int layers, int stageIndex, int stageCount,
                        int microBatch, int microBatches);
    double hopS(const StageShape &from, const StageShape &to, int microBatch);

    PipelineShapeCost pipelineCost(const PipelineDraft &draft, int microBatch, int microBatches);

    Plan toPlan(std::span<const PipelineDraft> drafts, std::span<const int> microBatches,
                int microBatch) const;

private:
    // Stage costs in dense tables (docs/planners.md, "Stage costs"): per stage id, micro-batch
    // size and position class (only, first, middle, last stage), the time of every layer count
    // and, per micro-batches in flight, the most layers that fit in memory. Blocks are made on
    // first use, so memory grows with the stages the search asks about, not with every key.
    struct CostBlock
    {
        std::vector<double> timeS;         // by layers − 1, per micro-batch; NaN: not asked yet
        std::vector<double> perIterationS; // by layers − 1: spread over the m micro-batches
        std::vector<int> mostLayers; // by in-flight − 1: most layers that fit; -1: not asked yet
    };
    CostBlock &costBlock(const StageShape &stage, int microBatch, int positionClass);
    StageQuery stageQuery(const StageShape &stage, int layers, int stageIndex, int stageCount,
                          int microBatch, int microBatches) const;
    int mostLayersThatFit(const StageShape &stage, int stageIndex, int stageCount, int microBatch,
                          int microBatches);

    const Problem &m_problem;
    const CostModel &m_costModel;
    const SearchReporter *m_reporter = nullptr; // Not owned.
    std::vector<double> m_tflops;
    NeighbourCache m_neighbours;
    std::unordered_map<std::string, int> m_stageIds; // key: GPU list as bytes
    std::vector<signed char> m_tpAllowed;            // per stage id: -1 unknown, 0, 1
    std::vector<int> m_microBatchSizes;              // the sizes asked about, by slot
    std::vector<std::vector<int>> m_blockOf;         // per slot, per (stage id, class): block or -1
    std::vector<CostBlock> m_blocks;
    std::unordered_map<std::uint64_t, double> m_hops;
    struct SplitKey
    {
        std::vector<int> gpus;
        int parts = 0;
        CutOption option = CutOption::MinimiseBetweenGroups;
        int ufactor = 0;
        auto operator<=>(const SplitKey &) const = default;
    };
    std::map<SplitKey, std::vector<std::vector<int>>> m_splits;
    size_t m_splitGpus = 0; // GPU indices held by m_splits, keys and answers
};

} // namespace hetplan::hexiscale
