#pragma once

#include "core/base/result.h"
#include "core/planners/planner.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>

namespace hetplan {
struct Problem;
class CostModel;
} // namespace hetplan

namespace hetplan::cli {

// Runs one planner to completion (no stop request) with the given seed.
Result<PlanSearch> runPlanner(PlannerKind kind, const Problem &problem, const CostModel &costModel,
                              std::uint64_t seed, const Plan *warmStart = nullptr);

// The plan, its estimate and the search trace as one JSON object (`plan --json`).
nlohmann::json planSearchToJson(const PlanSearch &search, const Problem &problem);

} // namespace hetplan::cli
