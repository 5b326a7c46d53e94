#pragma once

#include "core/base/result.h"
#include "core/cost/cost_model.h"
#include "core/cost/measured_comparison.h"
#include "core/cost/problem.h"
#include "core/plan/estimate.h"
#include "core/plan/plan.h"

#include <ostream>
#include <string>
#include <vector>

namespace hetplan::cli {

// "+12 %": a relative error as the comparison tables print it; "-" when it is not a number.
std::string relativeErrorText(double relative);

// `evaluate --measured` and `launch`: the measured run beside the prediction of that run as it
// trained (core/calibrate/run_prediction.h), once `measured` is checked to be a run of `plan`
// (its digest; a measurement without one gives a warning on stderr). `problem` is the plan's at
// full size.
Result<std::vector<Comparison>> compareWithRun(const Problem &problem, const CostModel &model,
                                               const Plan &plan, const std::string &planSource,
                                               const Measurement &measured,
                                               const std::string &measurementSource);

// `evaluate --measured`: a table, and a note when the run cannot be the hardware the cluster
// file describes (CPU ranks, a scaled-down model).
void printComparison(std::ostream &out, const Measurement &measured,
                     const std::vector<Comparison> &rows);

} // namespace hetplan::cli
