#pragma once

#include "core/base/no_fit.h"
#include "core/base/result.h"
#include "core/planners/planner.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace hetplan {
struct Problem;
class CostModel;
class Topology;
} // namespace hetplan

namespace hetplan::cli {

// Runs one planner with the given options until it finishes, its time limit passes or a
// SIGINT / SIGTERM arrives (signals.h).
Result<PlanSearch> runPlanner(PlannerKind kind, const Problem &problem, const CostModel &costModel,
                              const PlannerOptions &options, const Plan *warmStart = nullptr);
Result<PlanSearch> runPlanner(const Planner &planner, const Problem &problem,
                              const CostModel &costModel, PlannerOptions options,
                              const Plan *warmStart = nullptr);

// GPU names "A:0,B:3" as flat indices; an unknown name is an error naming `option`.
Result<std::vector<int>> parseGpuList(const std::string &option, const std::string &text,
                                      const Topology &topology);

// A warm-start plan for re-planning after GPUs left (HexGen §5.3): GPUs the cluster no longer
// has, or listed in `offline`, are dropped from the file; a stage left without GPUs goes, a
// stage that lost some becomes one TP group of what is left; the estimate is ignored. The
// result may no longer cover every layer: planners use it as a starting point only.
Result<Plan> loadWarmStart(const std::string &path, const Topology &topology,
                           const std::vector<int> &offline);

// Inference: the serving simulation's figures added to an evaluation (no-op for training).
void addServingFigures(const Problem &problem, const CostModel &costModel, const Plan &plan,
                       Evaluation &evaluation);

// The plan, its estimate and the search trace as one JSON object (`plan --json`).
nlohmann::json planSearchToJson(const PlanSearch &search, const Problem &problem);
// Why no plan fits, as `compare --json` reports it: {"closest": …, "over": [{"gpu", "machine",
// "gpu_type", "used_gib", "capacity_gib"}, …]} (docs/formats.md, "compare --json").
nlohmann::json noFitToJson(const NoFit &noFit);

} // namespace hetplan::cli
