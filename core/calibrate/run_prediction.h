#pragma once

// A measured run predicted as it trained (docs/calibration.md; docs/runtime.md, "Comparing
// with the prediction"): the plan's model scaled by the run's --scale, its sequence length,
// global batch and precision, not the plan at full size. `evaluate --measured`, `launch`, the
// app's Measured dock and calibration all compare through here.

#include "core/calibrate/calibration.h"
#include "core/cost/measured_comparison.h"
#include "core/plan/estimate.h"

#include <vector>

namespace hetplan {

class CostModel;
class Topology;

Evaluation predictRun(const Topology &topology, const CostModel &model, const CalibrationRun &run);

// predictRun beside what the run measured (compareMeasured's rows).
std::vector<Comparison> compareRun(const Topology &topology, const CostModel &model,
                                   const CalibrationRun &run);

} // namespace hetplan
