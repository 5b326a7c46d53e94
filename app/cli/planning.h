#pragma once

#include "core/base/result.h"
#include "core/planners/planner.h"

#include <cstdint>
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

// --warm-start FILE, read by parseWarmStart (core/io/warm_start.h).
Result<Plan> loadWarmStart(const std::string &path, const Topology &topology,
                           const std::vector<int> &offline);

// Inference: the serving simulation's figures added to an evaluation (no-op for training).
void addServingFigures(const Problem &problem, const CostModel &costModel, const Plan &plan,
                       Evaluation &evaluation);

} // namespace hetplan::cli
