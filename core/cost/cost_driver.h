#pragma once

// The driver of every cost model: turns one model's per-stage terms into a full Evaluation
// for training (1F1B pipelines + DP sync) and inference (one batch through each serving
// replica). It calls the terms and the helpers below it, never a CostModel.

#include "core/cost/problem.h"
#include "core/cost/stage_query.h"
#include "core/plan/estimate.h"

namespace hetplan {

struct Plan;
class StageTerms;

// One stage as a planner asks about it: timing plus memory of its most loaded GPU; the
// stage's own dp is taken as the replica count (planners do not know the rest yet).
StageEstimate estimateStageWith(const StageTerms &terms, const Problem &problem,
                                const StageQuery &stage);

// Training: 1F1B closed form per pipeline (HexiScale eq. 9 with the max over all stages),
// iteration = slowest pipeline + DP sync. With `out`, fills the whole Evaluation; without,
// the fast path for searches: returns the iteration time, or +inf when a GPU overflows.
double evaluateTraining(const StageTerms &terms, const Problem &problem, const Plan &plan,
                        Evaluation *out);

// Inference: each pipeline is a serving replica; latency = Σ stage (compute + TP) + Σ hops
// (HexGen §4.2). The objective is the slowest replica. `out` as above.
double evaluateInference(const StageTerms &terms, const Problem &problem, const Plan &plan,
                         Evaluation *out);

} // namespace hetplan
