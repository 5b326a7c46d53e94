#pragma once

#include "core/base/result.h"
#include "core/cost/measurement.h"
#include "core/plan/plan.h"

#include <string>

namespace hetplan {

class Topology;

// Whether `measured` is a run of `plan` (docs/runtime.md, "Comparing with the prediction"): its
// run.plan_digest against planDigest(plan). A different plan is refused (BadInput naming both
// files, both digests and, from the measurement's ranks, what differs). A measurement without a
// digest (written before measurements recorded it) cannot be checked: the result is then the
// warning to show, else it is empty.
// The refusal of a run of another plan: both files, both digests and what differs.
Error otherPlanError(const std::string &measurementSource, const std::string &ranDigest,
                     const std::string &planSource, const std::string &planDigest,
                     const std::string &difference);

Result<std::string> checkMeasuredPlan(const Measurement &measured,
                                      const std::string &measurementSource, const Plan &plan,
                                      const Topology &topology, const std::string &planSource);

} // namespace hetplan
