#pragma once

#include "core/cost/measurement.h"
#include "core/cost/phase_key.h"
#include "core/plan/plan.h"

#include <vector>

namespace hetplan {

// One figure predicted by the cost model beside what a run measured.
struct Comparison
{
    PhaseKey key;
    double predicted = 0;
    double measured = 0;
    // (measured − predicted) / predicted; NaN when nothing was predicted.
    double relativeError() const;
};

// The iteration, each phase of the iteration, then per stage its compute, TP, PP and DP times
// (per iteration: the estimate's per-micro-batch stage times times the pipeline's
// micro-batches, its hop beside the measured pp_comm), in seconds (docs/runtime.md,
// "Comparing with the prediction").
std::vector<Comparison> compareMeasured(const Plan &plan, const Evaluation &predicted,
                                        const Measurement &measured);

} // namespace hetplan
