#pragma once

#include "core/cost/measurement.h"
#include "core/cost/phase_key.h"
#include "core/plan/plan.h"

#include <optional>
#include <utility>
#include <vector>

namespace hetplan {

// One figure predicted by the cost model beside what a run measured.
struct Comparison
{
    Comparison() = default;
    // The interval is optional, so that rows are written as {key, predicted, measured}.
    Comparison(PhaseKey rowKey, double predictedS, double measuredS,
               std::optional<TimeInterval> interval = std::nullopt)
        : key(rowKey)
        , predicted(predictedS)
        , measured(measuredS)
        , interval90(interval)
    {}

    PhaseKey key;
    double predicted = 0;
    double measured = 0;
    // The prediction's 90 % interval (docs/cost-models.md, "Prediction intervals"); the
    // iteration's row only, where the evaluation has one.
    std::optional<TimeInterval> interval90;
    // (measured − predicted) / predicted; NaN when nothing (under a nanosecond) was predicted.
    double relativeError() const;
};

// The iteration, each phase of the iteration (the ending rank's, predicted and measured), per
// stage its compute, TP, PP and DP times (the mean of its ranks), then per rank every phase and
// each hop it has (its neighbours, sends on the TP leader), in seconds per iteration; both sides
// as core/cost/rank_phases.h defines them (docs/runtime.md, "Comparing with the prediction",
// "Phases per rank"). Hop rows only for ranks whose measurement recorded them.
std::vector<Comparison> compareMeasured(const Plan &plan, const Evaluation &predicted,
                                        const Measurement &measured);

} // namespace hetplan
