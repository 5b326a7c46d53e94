#include "app/cli/planning.h"

#include "core/cost/cost_model.h"
#include "core/io/evaluation_json.h"
#include "core/io/formats.h"

#include <nlohmann/json.hpp>

namespace hetplan::cli {

Result<PlanSearch> runPlanner(PlannerKind kind, const Problem &problem, const CostModel &costModel,
                              std::uint64_t seed, const Plan *warmStart)
{
    auto planner = makePlanner(kind);
    if (!planner)
        return planner.error();
    PlannerOptions options;
    options.seed = seed;
    if (warmStart)
        options.warmStart = *warmStart;
    NullProgress progress;
    std::stop_source never;
    return (*planner)->plan(problem, costModel, options, never.get_token(), progress);
}

nlohmann::json planSearchToJson(const PlanSearch &search, const Problem &problem)
{
    nlohmann::json out;
    out["plan"] = nlohmann::json::parse(writePlan(search.plan, problem.topology));
    out["estimate"] = evaluationToJson(search.evaluation, problem.topology);
    out["planning_s"] = search.planningS;
    out["stopped_early"] = search.stoppedEarly;
    nlohmann::json trace = nlohmann::json::array();
    for (const TracePoint &t : search.trace)
        trace.push_back({{"iteration", t.iteration}, {"elapsed_s", t.elapsedS}, {"best_s", t.bestCostS}});
    out["trace"] = std::move(trace);
    return out;
}

} // namespace hetplan::cli
