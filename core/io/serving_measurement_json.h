#pragma once

#include "core/base/result.h"
#include "core/serving/plan_serving.h"
#include "core/serving/serving_comparison.h"
#include "core/serving/serving_measurement.h"
#include "core/serving/serving_phases.h"

#include <string>
#include <string_view>

namespace hetplan {

// hetplan.serving-measurement/1 (docs/formats.md, "Serving measurement"):
// what a serving run measured, request by request.
inline constexpr std::string_view kServingMeasurementFormat = "hetplan.serving-measurement/1";

// Strict like the other readers (core/io/formats.h): errors name `source`, the JSON path and
// what would be valid. Every request is accounted for: ids 0..n−1 in order, a completed request
// has no failure and a failed one says why, times in order, each on a listed replica (or -1),
// and the summary's and the replicas' counts agree with the requests.
Result<ServingMeasurement> parseServingMeasurement(std::string_view text, std::string_view source);
std::string writeServingMeasurement(const ServingMeasurement &measurement);
Result<ServingMeasurement> loadServingMeasurement(const std::string &path);

// `evaluate --json` of an infer plan: `reportJson` (evaluateReportJson's object) with
// "serving_phases" (and "serving_interval", the ends of the serving figures' 90 % interval)
// added and, with --measured of a serving run, "serving_comparison"
// (docs/formats.md, "The other `--json` reports").
std::string withServingReport(const std::string &reportJson, const ServingPhases &phases,
                              const ServingComparison *comparison,
                              const ServingFiguresInterval *interval = nullptr);

} // namespace hetplan
