#pragma once

// `hetplan-cli calibrate --measured` of serving runs (docs/calibration.md, "Serving runs"):
// hetplan.serving-measurement/1 files, each with the plan it served, fitted by
// core/calibrate/serving_calibration.

#include "app/cli/args.h"
#include "core/model/cluster.h"
#include "core/model/topology.h"

#include <string>
#include <vector>

namespace hetplan::cli {

// Whether the file at `path` is a serving measurement (by its format; an unreadable file is
// not, and its reader says why).
bool isServingMeasurement(const std::string &path);

// Calibrates `cluster` (its `topology`) from the serving `measurements`, each with its plan
// (`plans` in order, else the plan the measurement names), writes the calibrated cluster to
// `out` and prints the fit. Returns the exit code.
int calibrateServed(const Args &args, const Cluster &cluster, const Topology &topology,
                    const std::vector<std::string> &measurements,
                    const std::vector<std::string> &plans, const std::string &out);

} // namespace hetplan::cli
