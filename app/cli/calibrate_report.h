#pragma once

#include "core/calibrate/calibration.h"

#include <ostream>
#include <string>

namespace hetplan::cli {

// `calibrate`'s report: each figure before and after with its standard error (or why it has
// none), the fit's residual, and every phase time measured beside the prediction before and
// after. Its JSON is core/io/comparison_json.h's.
void printCalibration(std::ostream &out, const Calibration &calibration);

// A figure or residual as the report prints it: four significant digits.
std::string fourDigits(double value);

// One figure's line of the report: before -> after ± its standard error, how many of
// `observed` (the fitted times) depend on it, the runs that identify it and why it stayed.
void printFittedFigure(std::ostream &out, const FittedFigure &figure, const char *observed);

// The model a measured run ran: `given` (--model) for every run, else the plan's, else the one
// the measurement names. Errors name --model or the plan's field.
Result<ModelSpec> modelOfRun(const std::string &given, const std::string &planPath,
                             const std::string &planModel, const std::string &measuredModel);

} // namespace hetplan::cli
