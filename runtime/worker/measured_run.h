#pragma once

// What a measured run trained, so the cost model can predict that run rather than the plan at
// full size: the model shrunk by the run's --scale, its sequence length, global batch, and the
// precision and recomputation of the runtime's backend (docs/runtime-model.md).

#include "core/base/result.h"
#include "core/calibrate/calibration.h"
#include "core/cost/measurement.h"
#include "core/model/model_spec.h"
#include "core/model/workload.h"
#include "core/plan/plan.h"

#include <string>

namespace hetplan::runtime {

// `full` is the plan's model at full size. Refuses (BadInput naming `source`) a measurement
// that cannot be a run of this plan: a different model, or a scale or sequence length that
// does not match the plan's workload.
Result<CalibrationRun> measuredRun(const Plan &plan, const ModelSpec &full,
                                   const Measurement &measured, const std::string &source);

} // namespace hetplan::runtime
