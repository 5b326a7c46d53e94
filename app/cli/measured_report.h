#pragma once

#include "core/base/result.h"
#include "core/cost/measured_comparison.h"
#include "core/plan/estimate.h"
#include "core/plan/plan.h"

#include <ostream>
#include <string>
#include <vector>

namespace hetplan::cli {

// "+12 %": a relative error as the comparison tables print it; "-" when it is not a number.
std::string relativeErrorText(double relative);

// `evaluate --measured`: a table, and a note when the run cannot be the hardware the cluster
// file describes (CPU ranks, a scaled-down model).
void printComparison(std::ostream &out, const Measurement &measured,
                     const std::vector<Comparison> &rows);

} // namespace hetplan::cli
