#pragma once

// The JSON reports `hetplan-cli … --json` prints (docs/formats.md, "compare --json" and
// "The other --json reports"). Reports, not files HetPlan reads back: no "format", and
// keys in name order. Each writer takes the typed values and returns the whole text (no
// trailing newline); the CLI only prints it.

#include "core/base/result.h"
#include "core/cost/measured_comparison.h"
#include "core/cost/prediction_interval.h"
#include "core/io/workload_origin.h"
#include "core/planners/bandwidth_sweep.h"
#include "core/planners/planner.h"

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hetplan {

class Topology;

// `plan --json`: the plan, its estimate, the search trace and the workload it was made for.
std::string planReportJson(const PlanSearch &search, const Topology &topology,
                           const Workload &workload, const WorkloadOrigin &origin);

// One planner's outcome in `compare --json`.
struct CompareRow
{
    PlannerKind planner = PlannerKind::HexiScale;
    Result<PlanSearch> search;
};
// `compare --json`: {"cost_model", "results": [one object per row, in order], and "rank_by"
// when the rows were ranked (`--rank-by`)}; each plan's result has its "p90_s".
std::string compareReportJson(std::string_view costModel, std::span<const CompareRow> rows,
                              const Topology &topology, std::optional<RankBy> rankBy = {});

// `evaluate --json`: the estimate, the workload and, when a run was given (--measured), the
// predicted figures beside the measured ones.
std::string evaluateReportJson(const Evaluation &evaluation, const Topology &topology,
                               const Workload &workload, const WorkloadOrigin &origin,
                               const std::vector<Comparison> *measured);
// `evaluate --json` of an invalid plan: {"valid": false, "errors": every one, "error_count"}.
std::string invalidPlanReportJson(std::span<const std::string> errors);

// `sweep --json`: {"target", "points": [{"bandwidth_GBps", "current_plan_s", then
// "replanned_s", "mfu", "strategy_changed", "pipelines" or "error"}, …]}.
std::string sweepReportJson(std::string_view target, std::span<const SweepPoint> points);

} // namespace hetplan
