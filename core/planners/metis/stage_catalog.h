#pragma once

// What the Metis search asks about stages, answered once each from the chosen cost model's
// building blocks (estimateStage, hopS) and cached: the planner asks the same questions about
// the same device group thousands of times. Not thread-safe; one per planning call.

#include "core/cost/cost_model.h"
#include "core/planners/metis/load_balance.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace hetplan::metis {

// Where a stage sits, as far as the cost models care: the first holds the embedding, the
// last the output head, and 1F1B keeps inFlight = min(m, S − j) micro-batches' activations.
struct Position
{
    bool first = true;
    bool last = true;
    int inFlight = 1;
};
Position positionOf(int stageIndex, int stageCount, int microBatches);

// One intra-stage plan (§4.1): a device group, its TP degree, dp = size / tp replicas of tp
// consecutive GPUs, and each replica's share of the micro-batch (data load balancing).
struct IntraPlan
{
    int group = -1;
    int tp = 1;
    int dp = 1;
    int microBatch = 1;
    std::vector<int> split; // per replica; empty when dp = 1
};

class StageCatalog
{
public:
    StageCatalog(const Problem &problem, const CostModel &costModel);

    const Problem &problem() const { return m_problem; }
    int layerCount() const { return m_problem.model.layers; }

    // Device groups, interned: equal GPU lists share an id.
    int group(const std::vector<int> &gpus);
    const std::vector<int> &gpus(int group) const { return m_groups[size_t(group)]; }

    // Algorithm 1 lines 9–13: the intra-stage plan with the highest DP degree that is valid
    // (DP-first), its data balanced over the replicas; -1 when the group has none.
    int dataParallelFirst(int group, int microBatch);
    // Algorithm 1 line 32: the same group at the next higher valid TP degree (lower DP),
    // data rebalanced; -1 when there is none.
    int raiseTp(int plan);
    const IntraPlan &intraPlan(int plan) const { return m_plans[size_t(plan)]; }

    // Per micro-batch, forward and backward: compute + TP comm = fixedS + layers · perLayerS,
    // and the most layers that fit in memory at this position (0: not even one).
    StageLoad load(int plan, const Position &position);
    // Activation forward plus gradient backward between neighbouring stages, per micro-batch.
    double hopS(int from, int to);
    // Metis §4.2.1: DP cost = the stage's synchronised parameters / the slowest link of its
    // DP groups (0 when dp = 1).
    double gradientSyncS(int plan, int layers, const Position &position);

private:
    int planFor(int group, int tp, int microBatch);
    StageQuery query(const IntraPlan &plan, const Position &position, int layers) const;
    double replicaSecondsPerSequence(std::span<const int> replica, int tp);
    int maxLayers(int plan, const Position &position);

    const Problem &m_problem;
    const CostModel &m_costModel;

    std::unordered_map<std::string, int> m_groupIds; // key: GPU list as bytes
    std::vector<std::vector<int>> m_groups;
    std::vector<IntraPlan> m_plans;
    std::vector<double> m_dpBytesPerS;                    // per plan: slowest DP-group link
    std::unordered_map<std::uint64_t, int> m_planIds;     // (group, tp, micro-batch) → plan or -1
    std::unordered_map<std::string, double> m_replicaS;   // replica GPU list → s per sequence
    std::unordered_map<std::uint64_t, StageLoad> m_loads; // (plan, first, last) → time terms
    std::unordered_map<std::uint64_t, int> m_maxLayers;   // (plan, first, last, in flight)
    std::unordered_map<std::uint64_t, double> m_hops;     // (plan, plan)
};

} // namespace hetplan::metis
