#include "core/planners/hexgen/symmetric_baseline.h"

#include "core/cost/cost_helpers.h"
#include "core/cost/cost_model.h"
#include "core/serving/plan_serving.h"

#include <algorithm>
#include <tuple>

namespace hetplan {

namespace {

constexpr int kMaxDepth = 16;

bool replicaFits(const Problem &problem, const CostModel &costModel, const Pipeline &pipeline)
{
    for (int j = 0; j < int(pipeline.stages.size()); ++j)
        if (!costModel.estimateStage(problem, stageQueryOf(pipeline, j, pipeline.microBatch)).fits)
            return false;
    return true;
}

} // namespace

Plan symmetricPlan(const Problem &problem, const CostModel &costModel, SymmetricShape shape,
                   const std::vector<int> &offlineGpus)
{
    const Topology &topology = problem.topology;
    std::vector<std::vector<int>> tpGroups;
    for (size_t m = 0; m < topology.cluster().machines.size(); ++m) {
        std::vector<int> gpus;
        const int first = topology.firstGpuOf(int(m));
        for (int i = 0; i < topology.cluster().machines[m].count; ++i)
            if (std::find(offlineGpus.begin(), offlineGpus.end(), first + i) == offlineGpus.end())
                gpus.push_back(first + i);
        for (size_t g = 0; g + size_t(shape.tp) <= gpus.size(); g += size_t(shape.tp)) {
            std::vector<int> group(gpus.begin() + std::ptrdiff_t(g),
                                   gpus.begin() + std::ptrdiff_t(g) + shape.tp);
            if (costModel.allowsTpGroup(problem, group))
                tpGroups.push_back(std::move(group));
        }
    }
    Plan plan;
    const int layers = problem.model.layers;
    for (size_t g = 0; g + size_t(shape.pp) <= tpGroups.size(); g += size_t(shape.pp)) {
        Pipeline pipeline;
        pipeline.microBatch = problem.workload.infer.batch;
        int layer = 0;
        for (int j = 0; j < shape.pp; ++j) {
            Stage stage;
            stage.gpus = tpGroups[g + size_t(j)];
            stage.tp = shape.tp;
            stage.layerBegin = layer;
            layer += layers / shape.pp + (j < layers % shape.pp ? 1 : 0);
            stage.layerEnd = layer;
            pipeline.stages.push_back(std::move(stage));
        }
        if (replicaFits(problem, costModel, pipeline))
            plan.pipelines.push_back(std::move(pipeline));
    }
    return plan;
}

std::optional<Plan> bestSymmetricPlan(const Problem &problem, const CostModel &costModel,
                                      const ServingSimulator &simulator, double sloS,
                                      const std::vector<int> &offlineGpus)
{
    std::optional<Plan> best;
    std::tuple<double, double> bestScore{-1, -1};
    const double rate = problem.workload.infer.requestRatePerS;
    for (int tp : {1, 2, 4, 8}) {
        for (int pp = 1; pp <= std::min(kMaxDepth, problem.model.layers); ++pp) {
            Plan plan = symmetricPlan(problem, costModel, {tp, pp}, offlineGpus);
            if (plan.pipelines.empty())
                continue;
            std::vector<double> latencyS;
            for (const Pipeline &pipeline : plan.pipelines)
                latencyS.push_back(replicaLatencyS(problem, costModel, pipeline));
            const std::tuple score{simulator.maxSustainableRate(latencyS, sloS),
                                   simulator.attainment(latencyS, rate, sloS)};
            if (score > bestScore) {
                bestScore = score;
                best = std::move(plan);
            }
        }
    }
    return best;
}

} // namespace hetplan
