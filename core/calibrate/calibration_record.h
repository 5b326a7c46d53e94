#pragma once

#include "core/calibrate/calibration.h"
#include "core/model/calibration_record.h"

#include <vector>

namespace hetplan {

// What a calibration leaves in the calibrated cluster's `calibration` object (docs/calibration.md,
// "What the calibrated cluster records"): the changed figures with their standard uncertainties.
// The residuals per phase and scope go to the origin (core/calibrate/calibration_residuals.h).
CalibrationRecord calibrationRecord(const std::vector<FittedFigure> &figures);

} // namespace hetplan
