#pragma once

#include "core/planners/planner.h"

#include <string>
#include <vector>

namespace hetplan {

// One symmetric Megatron-LM layout: dp × tp × pp = every GPU of the cluster.
struct MegatronShape
{
    int dp = 1;
    int tp = 1;
    int pp = 1;
    int microBatch = 1;

    std::string describe() const; // "dp=1, tp=2, pp=4, micro-batch 1"
};

// Megatron's rank order over the GPUs in cluster (flat index) order: rank r has
// tp_rank = r % tp, dp_rank = (r / tp) % dp, pp_rank = r / (tp·dp). Pipeline i holds the ranks
// with dp_rank i; its stage j the tp ranks with pp_rank j, uniform layers (pp | layers) and
// global_batch / (micro_batch·dp) micro-batches each.
Plan megatronPlan(const Problem &problem, const MegatronShape &shape);

// Every (dp, tp, pp, micro-batch) Megatron could be launched with on all GPUs of the cluster:
// dp·tp·pp = GPU count, pp divides the layer count (Megatron requires it), the micro-batch one
// of the workload's candidates with global_batch a multiple of micro_batch·dp. In order of
// pp, then tp, then micro-batch. TP groups are not checked here (that needs a cost model).
std::vector<MegatronShape> megatronShapes(const Problem &problem);

// The baseline every planner must beat (docs/architecture.md, planners): evaluates every symmetric
// shape whose TP groups the cost model allows and keeps the fastest that fits in memory
// and whose stages are connected. Training only.
class MegatronPlanner final : public Planner
{
public:
    PlannerKind kind() const override { return PlannerKind::Megatron; }

private:
    Result<PlanSearch> planImpl(const Problem &problem, const CostModel &costModel,
                                const PlannerOptions &options, std::stop_token stop,
                                ProgressSink &progress) const override;
};

} // namespace hetplan
