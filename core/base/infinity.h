#pragma once

#include <limits>

namespace hetplan {

// No finite figure: the time over a missing link, the cost of a plan that does not fit, the
// best found before a search has found anything.
inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

} // namespace hetplan
