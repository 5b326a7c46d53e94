#pragma once

#include "core/launch/preflight_report.h"
#include "core/model/cluster.h"

#include <string>

namespace hetplan {

// The origin a folded figure carries (ClusterOrigin: source).
inline constexpr const char *kPreflightSource = "preflight";

// Folds what a pre-flight measured between machines into `cluster` (docs/launcher.md,
// "Pre-flight"): every measured pair of GPUs on two machines (a hop, the slower of its two
// directions; a two-member all-reduce, its bus bandwidth) becomes a pair override with the
// achieved bandwidth and latency, replacing one the cluster had for the pair, and its figures
// are recorded as measured with source "preflight". A pair override is measured: the cost model
// takes it as it is and never derates it by a default transport efficiency. Checks that did not
// measure (hung, failed) change nothing. Returns how many pairs were folded.
int foldPreflight(Cluster &cluster, const PreflightReport &report);

} // namespace hetplan
