#include "app/cli/planning.h"

#include "app/cli/signals.h"
#include "core/cost/cost_model.h"
#include "core/io/files.h"
#include "core/io/warm_start.h"
#include "core/plan/plan.h"
#include "core/serving/plan_serving.h"

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
    return parseWarmStart(*text, path, topology, offline);
}

void addServingFigures(const Problem &problem, const CostModel &costModel, const Plan &plan,
                       Evaluation &evaluation)
{
    if (problem.workload.mode == Mode::Infer && !plan.pipelines.empty())
        evaluation.serving = servePlan(problem, costModel, plan);
}

} // namespace hetplan::cli
