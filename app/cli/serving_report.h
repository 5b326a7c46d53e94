#pragma once

#include "core/base/result.h"
#include "core/cost/problem.h"
#include "core/serving/plan_serving.h"
#include "core/serving/serving_comparison.h"
#include "core/serving/serving_measurement.h"
#include "core/serving/serving_phases.h"
#include "runtime/worker/served_run.h"

#include <ostream>
#include <string>

namespace hetplan {
class CostModel;
struct Plan;
} // namespace hetplan

namespace hetplan::cli {

// Owned by runtime/worker/served_run.h, shared with the app's Serving tab.
using runtime::compareServedRun;
using runtime::servedProblem;

// `evaluate` of an infer plan: each replica's prefill of one prompt and decode step per token
// at 1 and at `batch` sequences, beside its request latency.
void printServingPhases(std::ostream &out, const ServingPhases &phases);

// `evaluate` of an infer plan: the 90 % interval of the stream's latency percentiles and SLO
// attainment (servePlanInterval).
void printServingInterval(std::ostream &out, const ServingFiguresInterval &interval);

// `evaluate --measured` of a serving run: per replica and for the whole stream, simulated
// beside measured, with the warm-up and failures said.
void printServingComparison(std::ostream &out, const ServingMeasurement &measured,
                            const ServingComparison &comparison);

} // namespace hetplan::cli
