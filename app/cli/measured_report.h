#pragma once

#include "core/base/result.h"
#include "core/cost/measured_comparison.h"
#include "core/plan/estimate.h"
#include "core/plan/plan.h"

#include <ostream>
#include <vector>

namespace hetplan::cli {

// `evaluate --measured`: a table, and a note when the run cannot be the hardware the cluster
// file describes (CPU ranks, a scaled-down model).
void printComparison(std::ostream &out, const Measurement &measured,
                     const std::vector<Comparison> &rows);

} // namespace hetplan::cli
