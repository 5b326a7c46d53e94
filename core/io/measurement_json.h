#pragma once

#include "core/base/result.h"
#include "core/cost/measurement.h"

#include <string>
#include <string_view>

namespace hetplan {

// hetplan.measurement/1 (docs/runtime.md, "The measurement file"): what `hetplan-cli run`
// measured. Every worker writes one with its own rank; `run` merges them into one file.
inline constexpr std::string_view kMeasurementFormat = "hetplan.measurement/1";

// Strict like the other readers (core/io/formats.h): errors name `source`, the JSON path and
// what would be valid; the counts must agree (one loss per iteration, every rank and the
// iterations list as many entries as run.iterations).
Result<Measurement> parseMeasurement(std::string_view text, std::string_view source);
std::string writeMeasurement(const Measurement &measurement);
// Reads and parses a hetplan.measurement/1 file.
Result<Measurement> loadMeasurement(const std::string &path);

} // namespace hetplan
