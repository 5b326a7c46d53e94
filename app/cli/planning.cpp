#include "app/cli/planning.h"

#include "app/cli/signals.h"
#include "core/cost/cost_model.h"
#include "core/io/evaluation_json.h"
#include "core/io/files.h"
#include "core/io/formats.h"
#include "core/plan/plan.h"
#include "core/serving/plan_serving.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

namespace hetplan::cli {

Result<PlanSearch> runPlanner(PlannerKind kind, const Problem &problem, const CostModel &costModel,
                              const PlannerOptions &options, const Plan *warmStart)
{
    auto planner = makePlanner(kind);
    if (!planner)
        return planner.error();
    return runPlanner(**planner, problem, costModel, options, warmStart);
}

Result<PlanSearch> runPlanner(const Planner &planner, const Problem &problem,
                              const CostModel &costModel, PlannerOptions options,
                              const Plan *warmStart)
{
    if (warmStart)
        options.warmStart = *warmStart;
    NullProgress progress;
    return planner.plan(problem, costModel, options, stopToken(), progress);
}

Result<std::vector<int>> parseGpuList(const std::string &option, const std::string &text,
                                      const Topology &topology)
{
    std::vector<int> gpus;
    std::stringstream in(text);
    std::string name;
    while (std::getline(in, name, ',')) {
        if (name.empty())
            continue;
        const std::optional<int> gpu = topology.findGpu(name);
        if (!gpu)
            return badInput("--" + option + ": the cluster has no GPU '" + name
                            + "'; GPUs are named machine:index, e.g. " + topology.gpu(0).name);
        gpus.push_back(*gpu);
    }
    if (gpus.empty())
        return badInput("--" + option + ": expected a comma-separated list of GPUs such as "
                        + topology.gpu(0).name);
    return gpus;
}

Result<Plan> loadWarmStart(const std::string &path, const Topology &topology,
                           const std::vector<int> &offline)
{
    auto text = readTextFile(path);
    if (!text)
        return text.error();
    nlohmann::json json = nlohmann::json::parse(*text, nullptr, false);
    if (json.is_discarded() || !json.is_object() || !json.contains("pipelines")
        || !json["pipelines"].is_array())
        return parsePlan(*text, path, topology); // its reader names what is wrong
    const auto present = [&](const nlohmann::json &name) {
        if (!name.is_string())
            return true; // left for the reader to reject
        const std::optional<int> gpu = topology.findGpu(name.get<std::string>());
        return gpu && std::find(offline.begin(), offline.end(), *gpu) == offline.end();
    };
    json.erase("estimate");
    nlohmann::json pipelines = nlohmann::json::array();
    for (nlohmann::json pipeline : json["pipelines"]) {
        if (!pipeline.is_object() || !pipeline.contains("stages")
            || !pipeline["stages"].is_array()) {
            pipelines.push_back(pipeline);
            continue;
        }
        nlohmann::json stages = nlohmann::json::array();
        for (nlohmann::json stage : pipeline["stages"]) {
            if (!stage.is_object() || !stage.contains("gpus") || !stage["gpus"].is_array()) {
                stages.push_back(stage);
                continue;
            }
            nlohmann::json kept = nlohmann::json::array();
            for (const nlohmann::json &name : stage["gpus"])
                if (present(name))
                    kept.push_back(name);
            if (kept.empty())
                continue;
            if (kept.size() != stage["gpus"].size()) {
                stage["tp"] = kept.size();
                stage["dp"] = 1;
                stage.erase("dp_split");
            }
            stage["gpus"] = std::move(kept);
            stages.push_back(std::move(stage));
        }
        if (stages.empty())
            continue;
        pipeline["stages"] = std::move(stages);
        pipelines.push_back(std::move(pipeline));
    }
    if (pipelines.empty())
        return Plan{}; // every GPU it used is gone: the search starts from the cluster alone
    json["pipelines"] = std::move(pipelines);
    return parsePlan(json.dump(), path, topology);
}

void addServingFigures(const Problem &problem, const CostModel &costModel, const Plan &plan,
                       Evaluation &evaluation)
{
    if (problem.workload.mode == Mode::Infer && !plan.pipelines.empty())
        evaluation.serving = servePlan(problem, costModel, plan);
}

nlohmann::json planSearchToJson(const PlanSearch &search, const Problem &problem)
{
    nlohmann::json out;
    out["plan"] = nlohmann::json::parse(writePlan(search.plan, problem.topology));
    out["estimate"] = evaluationToJson(search.evaluation, problem.topology);
    out["planning_s"] = search.planningS;
    out["stopped_early"] = search.stoppedEarly;
    out["time_limit_reached"] = search.timeLimitReached;
    nlohmann::json trace = nlohmann::json::array();
    for (const TracePoint &t : search.trace)
        trace.push_back(
            {{"iteration", t.iteration}, {"elapsed_s", t.elapsedS}, {"best_s", t.bestCostS}});
    out["trace"] = std::move(trace);
    return out;
}

nlohmann::json noFitToJson(const NoFit &noFit)
{
    nlohmann::json over = nlohmann::json::array();
    for (const GpuOverflow &gpu : noFit.over)
        over.push_back({{"gpu", gpu.gpu},
                        {"machine", gpu.machine},
                        {"gpu_type", gpu.gpuType},
                        {"used_gib", gpu.usedGiB},
                        {"capacity_gib", gpu.capacityGiB}});
    return {{"closest", noFit.closest}, {"over", std::move(over)}};
}

} // namespace hetplan::cli
