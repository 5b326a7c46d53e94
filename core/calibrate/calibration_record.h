#pragma once

#include "core/calibrate/calibration.h"
#include "core/model/calibration_record.h"

#include <span>
#include <vector>

namespace hetplan {

class Topology;

// What a calibration leaves in the calibrated cluster (docs/calibration.md, "What the
// calibrated cluster records"): the changed figures with their standard uncertainties, and
// the calibrated prediction's relative errors over the fitted phase times per phase kind and
// link class.
CalibrationRecord calibrationRecord(const Topology &topology, std::span<const CalibrationRun> runs,
                                    const std::vector<FittedFigure> &figures,
                                    const std::vector<PhaseFit> &phases);

} // namespace hetplan
