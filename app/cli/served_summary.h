#pragma once

// The summary `hetplan-cli run` and `launch` print of a serving run's
// hetplan.serving-measurement/1 (docs/runtime.md, "Serving runs";
// runtime/worker/served_accounting.h makes it): every request accounted for (completed, failed and
// why), and over the measured completed ones the mean and percentiles of time to first token, time
// per output token and end-to-end latency, each replica's means, the SLO attainment and the
// throughput.

#include "core/serving/serving_measurement.h"

#include <ostream>

namespace hetplan::cli {

void printServedSummary(std::ostream &out, const ServingMeasurement &measured);

} // namespace hetplan::cli
