#pragma once

// What `hetplan-cli run` makes of a serving run (docs/runtime.md, "Serving runs"): the
// hetplan.serving-measurement/1 of its requests (figures by core/serving/serving_measurement),
// and the summary it prints: every request accounted for (completed, failed and why), and over
// the measured completed ones the mean and percentiles of time to first token, time per output
// token and end-to-end latency, each replica's means, the SLO attainment and the throughput.

#include "core/base/result.h"
#include "core/serving/serving_measurement.h"
#include "runtime/serve/request_stream.h"
#include "runtime/worker/job.h"

#include <ostream>
#include <string>
#include <vector>

namespace hetplan {
class CostModel;
}

namespace hetplan::cli {

// The measurement of `served` (every request of the stream, by id), run of `job` from
// `planPath` with `stream`'s options. The SLO is the workload's slo_s, else its slo_scale times
// the reference latency of the model at the run's scale (core/serving/plan_serving.h).
Result<ServingMeasurement> servedMeasurement(const runtime::Job &job, const std::string &planPath,
                                             const runtime::RequestStreamOptions &stream,
                                             const CostModel &costModel,
                                             std::vector<ServedRequest> served);

void printServedSummary(std::ostream &out, const ServingMeasurement &measured);

} // namespace hetplan::cli
