#pragma once

#include "core/calibrate/calibration.h"

#include <ostream>

namespace hetplan::cli {

// `calibrate`'s report: each figure before and after with its standard error (or why it has
// none), the fit's residual, and every phase time measured beside the prediction before and
// after. Its JSON is core/io/comparison_json.h's.
void printCalibration(std::ostream &out, const Calibration &calibration);

} // namespace hetplan::cli
