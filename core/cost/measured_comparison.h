#pragma once

#include "core/cost/measurement.h"
#include "core/plan/plan.h"

#include <string>
#include <vector>

namespace hetplan {

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

} // namespace hetplan
