#pragma once

#include "core/base/result.h"
#include "core/cost/measurement.h"

#include <ostream>
#include <string>
#include <vector>

namespace hetplan::cli {

// Reads every rank's hetplan.measurement/1 file and merges them (core/cost/measurement.h).
Result<Measurement> mergeRankResults(const std::vector<std::string> &paths);

// Loss per iteration, time per iteration, tokens/s and the phase breakdown.
void printMeasurement(std::ostream &out, const Measurement &measurement);

Status writeMeasurementFile(const std::string &path, const Measurement &measurement);

} // namespace hetplan::cli
