#pragma once

#include <vector>

namespace hetplan {

// Whether the residuals of a fit can tell a parameter apart (docs/calibration.md, "Which runs
// identify which figures"), read off the Jacobian (row per residual, column per parameter).
enum class Identifiability {
    Identified,
    NoDependence, // no residual moves with it
    Collinear,    // it moves the residuals as a combination of the other parameters does
};

// Per column. A column is collinear when the sine of its angle to the span of the other
// non-zero columns is below kMinIdentifiedSine; then its standard error would be more than
// 1 / kMinIdentifiedSine times what it would be alone.
inline constexpr double kMinIdentifiedSine = 0.03;
std::vector<Identifiability> identifiability(const std::vector<std::vector<double>> &jacobian);

} // namespace hetplan
