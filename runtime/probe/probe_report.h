#pragma once

#include "core/io/probe_file.h"

#include <ostream>
#include <string>

namespace hetplan::runtime::probe {

// What a person reads after a probe: per host its GEMM and memory figures (beside the catalog's
// for a matched GPU) or why it has no GPU figures, per pair its bandwidth and latency, then
// every plausibility flag.
void printReport(std::ostream &out, const Probe &probe);

} // namespace hetplan::runtime::probe
