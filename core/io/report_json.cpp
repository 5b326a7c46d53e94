#include "core/io/report_json.h"

#include "core/base/no_fit.h"
#include "core/io/comparison_json.h"
#include "core/io/evaluation_json.h"
#include "core/io/formats.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace hetplan {
namespace {

// Reports sort their keys (nlohmann::json's std::map), as they always have.
using Json = nlohmann::json;

Json workloadJson(const Workload &workload, const WorkloadOrigin &origin)
{
    Json fields = Json::object();
    const std::span<const WorkloadField> names = workloadFields(workload.mode);
    const std::vector<std::string> values = workloadFieldTexts(workload);
    for (std::size_t f = 0; f < names.size(); ++f)
        fields[std::string(workloadFieldName(names[f]))] = values[f];
    std::vector<std::string> defaults;
    for (WorkloadField field : origin.defaults)
        defaults.emplace_back(workloadFieldName(field));
    std::sort(defaults.begin(), defaults.end());
    return {{"mode", workload.mode == Mode::Train ? "train" : "infer"},
            {"source", origin.source},
            {"fields", fields},
            {"defaults", defaults},
            {"notes", origin.notes}};
}

Json planSearchJson(const PlanSearch &search, const Topology &topology)
{
    Json out;
    out["plan"] = Json::parse(writePlan(search.plan, topology));
    out["estimate"] = evaluationToJson(search.evaluation, topology);
    out["planning_s"] = search.planningS;
    out["stopped_early"] = search.stoppedEarly;
    out["time_limit_reached"] = search.timeLimitReached;
    Json trace = Json::array();
    for (const TracePoint &t : search.trace)
        trace.push_back(
            {{"iteration", t.iteration}, {"elapsed_s", t.elapsedS}, {"best_s", t.bestCostS}});
    out["trace"] = std::move(trace);
    // docs/planners.md, "Idle GPUs".
    Json idle = Json::array();
    for (const IdleGpus &c : search.idleGpus) {
        Json machines = Json::array();
        for (int m : c.machines)
            machines.push_back(topology.cluster().machines[size_t(m)].name);
        Json entry{{"gpu_type", c.gpuType},
                   {"gpus_per_machine", c.gpusPerMachine},
                   {"machines", std::move(machines)}};
        if (std::isfinite(c.withOneAddedS)) {
            entry["with_one_added_s"] = c.withOneAddedS;
            entry["best_use"] = c.bestUse;
        } else {
            entry["why_not"] = c.whyNot;
        }
        idle.push_back(std::move(entry));
    }
    out["idle_gpus"] = std::move(idle);
    return out;
}

// Why no plan fits: {"closest": …, "over": [{"gpu", "machine", "gpu_type", "used_gib",
// "capacity_gib"}, …]}.
Json noFitJson(const NoFit &noFit)
{
    Json over = Json::array();
    for (const GpuOverflow &gpu : noFit.over)
        over.push_back({{"gpu", gpu.gpu},
                        {"machine", gpu.machine},
                        {"gpu_type", gpu.gpuType},
                        {"used_gib", gpu.usedGiB},
                        {"capacity_gib", gpu.capacityGiB}});
    return {{"closest", noFit.closest}, {"over", std::move(over)}};
}

Json compareRowJson(const CompareRow &row, const Topology &topology)
{
    Json out{{"planner", plannerName(row.planner)}};
    if (row.search) {
        out.update(planSearchJson(*row.search, topology));
        out["status"] = "ok";
        const double p90S = rankingS(row.search->evaluation, RankBy::P90);
        out["p90_s"] = std::isfinite(p90S) ? Json(p90S) : Json(nullptr);
        return out;
    }
    const Error &error = row.search.error();
    out["status"] = error.kind == ErrorKind::NoPlanFits ? "no plan fits" : "error";
    out["error"] = error.message;
    if (error.noFit)
        out["no_fit"] = noFitJson(*error.noFit);
    return out;
}

} // namespace

std::string planReportJson(const PlanSearch &search, const Topology &topology,
                           const Workload &workload, const WorkloadOrigin &origin)
{
    Json out = planSearchJson(search, topology);
    out["workload"] = workloadJson(workload, origin);
    return out.dump(2);
}

std::string compareReportJson(std::string_view costModel, std::span<const CompareRow> rows,
                              const Topology &topology, std::optional<RankBy> rankBy)
{
    Json results = Json::array();
    for (const CompareRow &row : rows)
        results.push_back(compareRowJson(row, topology));
    Json out{{"cost_model", costModel}, {"results", std::move(results)}};
    if (rankBy)
        out["rank_by"] = nameOf<RankBy>(kRankByNames, *rankBy);
    return out.dump(2);
}

std::string evaluateReportJson(const Evaluation &evaluation, const Topology &topology,
                               const Workload &workload, const WorkloadOrigin &origin,
                               const std::vector<Comparison> *measured)
{
    Json out = evaluationToJson(evaluation, topology);
    out["workload"] = workloadJson(workload, origin);
    if (measured)
        out["measured"] = comparisonToJson(*measured);
    return out.dump(2);
}

std::string invalidPlanReportJson(std::span<const std::string> errors)
{
    return Json{{"valid", false},
                {"errors", std::vector<std::string>(errors.begin(), errors.end())},
                {"error_count", errors.size()}}
        .dump(2);
}

std::string sweepReportJson(std::string_view target, std::span<const SweepPoint> points)
{
    Json list = Json::array();
    for (const SweepPoint &p : points) {
        Json point{{"bandwidth_GBps", p.bandwidthGBps}, {"current_plan_s", p.currentPlanS}};
        if (p.replannedS) {
            point["replanned_s"] = *p.replannedS;
            point["mfu"] = p.replannedMfu;
            point["strategy_changed"] = p.strategyChanged;
            point["pipelines"] = p.replannedPipelines;
        } else {
            point["error"] = p.error;
        }
        list.push_back(std::move(point));
    }
    return Json{{"target", target}, {"points", std::move(list)}}.dump(2);
}

} // namespace hetplan
