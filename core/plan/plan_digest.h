#pragma once

#include "core/plan/plan.h"

#include <string>

namespace hetplan {

class Topology;

// The plan's layout as a digest: 16 hex digits of a 64-bit FNV-1a hash of its pipelines (micro-
// batch and count, each stage's GPUs by name, TP, DP, layers, DP split and transports). Names,
// planner, cost model, workload and estimate do not count, nor how the file is written, so a
// plan read back from its own JSON has the same digest. A measurement records the digest of the
// plan it ran (docs/runtime.md, "The measurement file": run.plan_digest).
std::string planDigest(const Plan &plan, const Topology &topology);

} // namespace hetplan
