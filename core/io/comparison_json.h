#pragma once

// The JSON of measured-beside-predicted rows: `evaluate --measured --json` ("measured",
// docs/runtime.md "Comparing with the prediction") and `calibrate --json` (docs/calibration.md,
// "The report as JSON"). Each row carries its key as typed fields ("phase", and "pipeline",
// "stage", "rank" where it has them) beside "what", the label reports print.

#include "core/calibrate/calibration.h"
#include "core/cost/measured_comparison.h"

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace hetplan {

// Per row: the key, predicted_s, measured_s, relative_error (null without a prediction), and
// interval_90 (lo_s, hi_s) where the row has one.
nlohmann::json comparisonToJson(const std::vector<Comparison> &rows);

// The calibration report: figures, rms_log_error_before/after, iterations and phases (per
// row: run, the key, fitted, measured_s, before_s, after_s), indented by two spaces.
std::string writeCalibrationReport(const Calibration &calibration);

} // namespace hetplan
