#pragma once

#include "core/base/result.h"
#include "core/cost/measurement.h"
#include "core/plan/estimate.h"
#include "core/plan/plan.h"

#include <nlohmann/json_fwd.hpp>
#include <ostream>
#include <vector>

namespace hetplan::cli {

// One figure predicted by the cost model beside what a run measured.
struct Comparison
{
    std::string what; // "iteration", "compute", "p0 s1 compute", ...
    double predicted = 0;
    double measured = 0;
    // (measured − predicted) / predicted; NaN when nothing was predicted.
    double relativeError() const;
};

// Per phase of the iteration and per stage and phase (per iteration: the estimate's
// per-micro-batch stage times times the pipeline's micro-batches), in seconds.
std::vector<Comparison> compareMeasured(const Plan &plan, const Evaluation &predicted,
                                        const Measurement &measured);

// `evaluate --measured`: a table, and a note when the run cannot be the hardware the cluster
// file describes (CPU ranks, a scaled-down model).
void printComparison(std::ostream &out, const Measurement &measured,
                     const std::vector<Comparison> &rows);
nlohmann::json comparisonJson(const std::vector<Comparison> &rows);

// Reads a hetplan.measurement/1 file (--measured FILE).
Result<Measurement> loadMeasurement(const std::string &path);

} // namespace hetplan::cli
