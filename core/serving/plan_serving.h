#pragma once

// Serving figures of an inference plan: the SLO in seconds (absolute, or HexGen §5.1's scale
// of a reference latency), each replica's request latency from the cost model, and what the
// serving simulator makes of them.

#include "core/base/result.h"
#include "core/plan/estimate.h"
#include "core/serving/serving_sim.h"

#include <span>
#include <vector>

namespace hetplan {

struct Plan;
struct Pipeline;
struct Problem;
struct StageQuery;
class CostModel;

// When a workload gives neither slo_s nor slo_scale: HexGen §5.4 plans at SLO scale 5.
inline constexpr double kDefaultSloScale = 5.0;

// One request (a batch of b_t sequences) through one replica: Σ stage compute and TP
// communication + Σ hops (HexGen eq. 2), the figure evaluate() reports per replica.
double replicaLatencyS(const Problem &problem, const CostModel &costModel,
                       const Pipeline &pipeline);

// Whether each replica's GPUs all hold what the evaluation puts on them; a replica that does
// not fit serves nothing.
std::vector<bool> replicasThatFit(const Evaluation &evaluation, const Plan &plan);

// HexGen §5.1 scales the SLO to "the execution latency of A100 GPUs"; its homogeneous
// setting serves 4 replicas on 16 A100-40G (Appendix F), so the reference is one request on
// 4 A100-40G with tensor parallelism in one NVLink machine, under the same cost model. (TP 2
// or 1 where the cost model does not allow 4 for the model's heads.)
double referenceLatencyS(const Problem &problem, const CostModel &costModel);

// The SLO in seconds: slo_s, else slo_scale (default kDefaultSloScale) × the reference.
double sloSeconds(const Problem &problem, const CostModel &costModel);

// Serving figures for replicas of known latency at the workload's rate.
ServingFigures servingFigures(const Problem &problem, std::span<const double> replicaLatencyS,
                              double sloS, double referenceS, const ServingOptions &options = {});

// The same for a plan: replica latencies from the cost model (a replica that does not fit in
// memory serves nothing). Inference workloads only.
ServingFigures servePlan(const Problem &problem, const CostModel &costModel, const Plan &plan,
                         const ServingOptions &options = {});

// servePlan with every replica's latency at each end of its 90 % interval (docs/cost-models.md,
// "Prediction intervals", "Serving percentiles"): `low` gives the low ends of the percentiles
// and the high end of the attainment, `high` the others. The SLO stays the plan's. Both are the
// plan's own figures when the evaluation has no interval.
struct ServingFiguresInterval
{
    ServingFigures low;
    ServingFigures high;
};
ServingFiguresInterval servePlanInterval(const Problem &problem, const CostModel &costModel,
                                         const Plan &plan, const ServingOptions &options = {});

} // namespace hetplan
