#pragma once

#include "core/base/result.h"
#include "core/cost/problem.h"
#include "core/serving/serving_comparison.h"
#include "core/serving/serving_measurement.h"

#include <ostream>
#include <string>

namespace hetplan::cli {

// The problem a serving run solved, so the simulation predicts the run rather than the plan at
// full size: the plan's model shrunk by run.scale (docs/runtime-model.md), the run's lengths,
// batch, rate and SLO, and the precision its backend computes in. Refuses (BadInput naming
// `source`) a run of another model or a scale the model cannot take.
Result<Problem> servedProblem(const Problem &planned, const ServingMeasurement &measured,
                              const std::string &source);

// `evaluate --measured` of a serving run: per replica and for the whole stream, simulated
// beside measured, with the warm-up and failures said.
void printServingComparison(std::ostream &out, const ServingMeasurement &measured,
                            const ServingComparison &comparison);

} // namespace hetplan::cli
