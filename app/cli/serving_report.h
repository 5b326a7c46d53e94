#pragma once

#include "core/base/result.h"
#include "core/cost/problem.h"
#include "core/serving/serving_comparison.h"
#include "core/serving/serving_measurement.h"
#include "core/serving/serving_phases.h"

#include <ostream>
#include <string>

namespace hetplan {
class CostModel;
struct Plan;
} // namespace hetplan

namespace hetplan::cli {

// The problem a serving run solved, so the simulation predicts the run rather than the plan at
// full size: the plan's model shrunk by run.scale (docs/runtime-model.md), the run's lengths,
// batch, rate and SLO, and the precision its backend computes in. Refuses (BadInput naming
// `source`) a run of another model or a scale the model cannot take.
Result<Problem> servedProblem(const Problem &planned, const ServingMeasurement &measured,
                              const std::string &source);

// `evaluate --measured RUN` of a serving run: RUN must be a run of `plan` (its digest); the
// run's own requests simulated for the problem it solved (servedProblem), beside it.
Result<ServingComparison> compareServedRun(const ServingMeasurement &measured,
                                           const std::string &source, const Problem &planned,
                                           const CostModel &costModel, const Plan &plan,
                                           const std::string &planSource);

// `evaluate` of an infer plan: each replica's prefill of one prompt and decode step per token
// at 1 and at `batch` sequences, beside its request latency.
void printServingPhases(std::ostream &out, const ServingPhases &phases);

// `evaluate --measured` of a serving run: per replica and for the whole stream, simulated
// beside measured, with the warm-up and failures said.
void printServingComparison(std::ostream &out, const ServingMeasurement &measured,
                            const ServingComparison &comparison);

} // namespace hetplan::cli
