#include "core/planners/hexgen/hexgen_planner.h"

#include "core/base/text.h"
#include "core/cost/cost_helpers.h"
#include "core/cost/cost_model.h"
#include "core/cost/problem.h"
#include "core/cost/validator.h"
#include "core/planners/hexgen/genetic_search.h"
#include "core/serving/plan_serving.h"

#include <algorithm>

namespace hetplan {

namespace {

// The warm plan's replicas as groups, without offline GPUs; each machine's GPUs that no
// replica used form one more group.
std::vector<GpuGroup> warmGroups(const Plan &warm, const std::vector<std::vector<int>> &available,
                                 const Topology &topology)
{
    std::vector<char> online(size_t(topology.gpuCount()), 0);
    for (const std::vector<int> &gpus : available)
        for (int g : gpus)
            online[size_t(g)] = 1;
    std::vector<int> leftover(available.size());
    for (size_t m = 0; m < available.size(); ++m)
        leftover[m] = int(available[m].size());
    std::vector<GpuGroup> groups;
    for (const Pipeline &pipeline : warm.pipelines) {
        std::vector<int> counts(available.size(), 0);
        for (const Stage &stage : pipeline.stages)
            for (int g : stage.gpus)
                if (g >= 0 && g < topology.gpuCount() && online[size_t(g)]) {
                    online[size_t(g)] = 0; // a GPU named twice counts once
                    ++counts[size_t(topology.gpu(g).machine)];
                }
        GpuGroup group;
        for (size_t m = 0; m < counts.size(); ++m)
            if (counts[m] > 0) {
                group.push_back({int(m), counts[m]});
                leftover[m] -= counts[m];
            }
        if (!group.empty())
            groups.push_back(std::move(group));
    }
    for (size_t m = 0; m < leftover.size(); ++m)
        if (leftover[m] > 0)
            groups.push_back({{int(m), leftover[m]}});
    return groups;
}

bool usesOnly(const Plan &plan, const std::vector<char> &offline)
{
    for (const Pipeline &pipeline : plan.pipelines)
        for (const Stage &stage : pipeline.stages)
            for (int g : stage.gpus)
                if (g < 0 || g >= int(offline.size()) || offline[size_t(g)])
                    return false;
    return true;
}

} // namespace

Result<PlanSearch> HexGenPlanner::planImpl(const Problem &problem, const CostModel &costModel,
                                           const PlannerOptions &options, std::stop_token stop,
                                           ProgressSink &progress) const
{
    const Topology &topology = problem.topology;
    std::vector<char> offline(size_t(topology.gpuCount()), 0);
    for (int g : options.excludedGpus)
        if (g >= 0 && g < topology.gpuCount())
            offline[size_t(g)] = 1;
    std::vector<std::vector<int>> available(topology.cluster().machines.size());
    for (int g = 0; g < topology.gpuCount(); ++g)
        if (!offline[size_t(g)])
            available[size_t(topology.gpu(g).machine)].push_back(g);

    ServingOptions serving;
    serving.seed = options.seed;
    const HexGenParameters &parameters = options.parameters.hexgen;
    serving.requests = parameters.requests;
    const ServingSimulator simulator(serving);
    const double sloS = sloSeconds(problem, costModel);

    const bool warm = options.warmStart.has_value();
    SearchSettings settings;
    settings.generations = warm ? parameters.replanGenerations : parameters.generations;
    if (options.maxIterations > 0)
        settings.generations = options.maxIterations;
    settings.population = parameters.population;
    settings.patience = parameters.patience;
    settings.seed = options.seed;
    settings.tieBreak = parameters.preferReplicas ? TieBreak::Replicas : TieBreak::Rate;

    ReplicaLayouts layouts(problem, costModel, available, parameters.maxStages);
    SearchReporter reporter(stop, progress);
    GeneticSearch search(layouts, simulator, sloS, settings);
    std::vector<GeneticSearch::Individual> start
        = warm ? search.localStart(warmGroups(*options.warmStart, available, topology))
               : search.kMeansStart();

    PlanSearch result;
    const GeneticSearch::Individual best = search.evolve(std::move(start), reporter);
    result.trace = reporter.takeTrace();
    result.plan.pipelines = search.replicas(best.groups);

    // Never worse than a warm start that is still a valid plan on the online GPUs.
    if (warm && usesOnly(*options.warmStart, offline)
        && validatePlan(problem, *options.warmStart, &costModel).empty()) {
        std::vector<double> latencyS;
        for (const Pipeline &pipeline : options.warmStart->pipelines)
            latencyS.push_back(replicaLatencyS(problem, costModel, pipeline));
        if (search.fitnessOf(latencyS).betterThan(best.fitness))
            result.plan.pipelines = options.warmStart->pipelines;
    }
    if (result.plan.pipelines.empty()) {
        if (stop.stop_requested())
            return Error{ErrorKind::Cancelled, "stopped before any replica that fits was found"};
        double paramsBytes
            = problem.model.totalParams() * bytesPerElement(problem.workload.infer.precision);
        return Error{
            ErrorKind::NoPlanFits,
            "no group of the online GPUs of '" + topology.cluster().name + "' holds one replica of "
                + problem.model.name + " (" + gibText(paramsBytes / kBytesPerGiB)
                + " GiB of parameters plus its KV cache) under the " + std::string(costModel.name())
                + " cost model; add GPUs with more memory or use a smaller model"};
    }
    return result;
}

} // namespace hetplan
