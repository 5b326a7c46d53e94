#pragma once

// What `hetplan-cli run` prints after a serving run (docs/runtime.md, "Serving runs"): every
// request accounted for (completed, failed and why), and over the completed ones outside the
// warm-up, percentiles of time to first token, time per output token, end-to-end latency and
// queueing delay, and the throughput.

#include "core/serving/serving_request.h"

#include <ostream>
#include <vector>

namespace hetplan::cli {

void printServedSummary(std::ostream &out, const std::vector<ServedRequest> &served, int replicas);

} // namespace hetplan::cli
