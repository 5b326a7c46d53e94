#pragma once

// What a calibrated cluster keeps of how well its fit predicted the runs (docs/calibration.md,
// "Residuals"): prediction intervals take their width from it (docs/cost-models.md,
// "Prediction intervals").

#include "core/calibrate/calibration.h"

#include <span>
#include <vector>

namespace hetplan {

class Topology;

// Per phase and what it ran on (core/cost/prediction_interval.h, PhaseScope), the root mean
// square of ln(after / measured) over the runs' per-stage phase times of at least
// `minMeasuredS`, the bubble included; in the order phases first appear.
std::vector<CalibrationResidual> calibrationResiduals(const Topology &topology,
                                                      std::span<const CalibrationRun> runs,
                                                      std::span<const PhaseFit> phases,
                                                      double minMeasuredS);

} // namespace hetplan
