#pragma once

// What a serving run served, so the serving simulation predicts that run rather than the plan at
// full size: the plan's model shrunk by the run's --scale (docs/runtime-model.md), the run's
// lengths, batch, rate and SLO, and the precision its backend computes in. The training
// counterpart is measured_run.h.

#include "core/base/result.h"
#include "core/cost/problem.h"
#include "core/serving/serving_comparison.h"
#include "core/serving/serving_measurement.h"

#include <string>

namespace hetplan {
class CostModel;
struct Plan;
} // namespace hetplan

namespace hetplan::runtime {

// The problem a serving run solved. Refuses (BadInput naming `source`) a run of another model or
// a scale the model cannot take.
Result<Problem> servedProblem(const Problem &planned, const ServingMeasurement &measured,
                              const std::string &source);

// `evaluate --measured RUN` of a serving run, and the app's Serving tab: RUN must be a run of
// `plan` (its digest, checkServedPlan); the run's own requests simulated for the problem it
// solved (servedProblem), beside it, with the simulation's 90 % interval.
Result<ServingComparison> compareServedRun(const ServingMeasurement &measured,
                                           const std::string &source, const Problem &planned,
                                           const CostModel &costModel, const Plan &plan,
                                           const std::string &planSource);

} // namespace hetplan::runtime
