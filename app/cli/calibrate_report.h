#pragma once

#include "core/calibrate/calibration.h"

#include <nlohmann/json_fwd.hpp>
#include <ostream>

namespace hetplan::cli {

// `calibrate`'s report: each figure before and after with its standard error (or why it has
// none), the fit's residual, and every phase time measured beside the prediction before and
// after.
void printCalibration(std::ostream &out, const Calibration &calibration);
nlohmann::json calibrationJson(const Calibration &calibration);

} // namespace hetplan::cli
