#include "core/serving/plan_serving.h"

#include "core/cost/cost_helpers.h"
#include "core/cost/cost_model.h"
#include "core/io/catalog_json.h"
#include "core/plan/plan.h"
#include "core/serving/serving_phases.h"

#include <cassert>
#include <cmath>
#include <limits>
#include <optional>

namespace hetplan {

namespace {

constexpr const char *kReferenceGpu = "A100-40G";
constexpr int kReferenceGpus = 4;

} // namespace

double replicaLatencyS(const Problem &problem, const CostModel &costModel, const Pipeline &pipeline)
{
    const int batch = problem.workload.infer.batch;
    const int stageCount = int(pipeline.stages.size());
    double latencyS = 0;
    for (int j = 0; j < stageCount; ++j) {
        const StageQuery query = stageQueryOf(pipeline, j, batch);
        const StageEstimate estimate = costModel.estimateStage(problem, query);
        latencyS += estimate.timing.computeS + estimate.timing.tpCommS;
        if (j + 1 < stageCount)
            latencyS += costModel.hopS(problem, query, stageQueryOf(pipeline, j + 1, batch));
    }
    return latencyS;
}

std::vector<bool> replicasThatFit(const Evaluation &evaluation, const Plan &plan)
{
    std::vector<bool> fits(plan.pipelines.size(), true);
    size_t gpu = 0;
    for (size_t p = 0; p < plan.pipelines.size(); ++p)
        for (const Stage &stage : plan.pipelines[p].stages)
            for (size_t i = 0; i < stage.gpus.size(); ++i, ++gpu)
                if (gpu < evaluation.memory.size() && !evaluation.memory[gpu].fits())
                    fits[p] = false;
    return fits;
}

double referenceLatencyS(const Problem &problem, const CostModel &costModel)
{
    const GpuType *a100 = builtinGpuCatalog().find(kReferenceGpu);
    assert(a100 && "the built-in catalog ships the reference GPU");
    Cluster cluster;
    cluster.name = "reference";
    Machine machine;
    machine.name = "reference";
    machine.gpu = a100->name;
    machine.count = kReferenceGpus;
    machine.intra = a100->typicalIntra;
    cluster.machines.push_back(machine);
    Result<Topology> topology = Topology::build(cluster, builtinGpuCatalog());
    assert(topology.ok());
    const Problem reference{std::move(topology).value(), problem.model, problem.workload};

    Pipeline pipeline;
    pipeline.microBatch = problem.workload.infer.batch;
    Stage stage;
    stage.layerEnd = problem.model.layers;
    for (int tp = kReferenceGpus; tp >= 1; tp /= 2) {
        stage.gpus.clear();
        for (int g = 0; g < tp; ++g)
            stage.gpus.push_back(g);
        stage.tp = tp;
        if (tp == 1 || costModel.allowsTpGroup(reference, stage.gpus))
            break;
    }
    pipeline.stages.push_back(stage);
    return replicaLatencyS(reference, costModel, pipeline);
}

double sloSeconds(const Problem &problem, const CostModel &costModel)
{
    const InferWorkload &infer = problem.workload.infer;
    if (infer.sloS)
        return *infer.sloS;
    return infer.sloScale.value_or(kDefaultSloScale) * referenceLatencyS(problem, costModel);
}

ServingFigures servingFigures(const Problem &problem, std::span<const double> replicaLatencyS,
                              double sloS, double referenceS, const ServingOptions &options)
{
    const ServingSimulator simulator(options);
    const double rate = problem.workload.infer.requestRatePerS;
    const ServingOutcome outcome = simulator.simulate(replicaLatencyS, rate, sloS);
    ServingFigures figures;
    figures.requestRatePerS = rate;
    figures.sloS = sloS;
    figures.referenceLatencyS = referenceS;
    figures.attainment = outcome.attainment;
    figures.p50S = outcome.p50S;
    figures.p99S = outcome.p99S;
    figures.targetAttainment = options.targetAttainment;
    figures.maxRatePerS = simulator.maxSustainableRate(replicaLatencyS, sloS);
    return figures;
}

namespace {

ServingFigures servePlanWith(const Problem &problem, const CostModel &costModel, const Plan &plan,
                             std::optional<IntervalEnd> end, const ServingOptions &options)
{
    assert(problem.workload.mode == Mode::Infer);
    const Evaluation evaluation = costModel.evaluate(problem, plan);
    std::vector<double> latencyS = evaluation.replicaLatencyS;
    if (end && evaluation.interval && evaluation.interval->replicaLatency.size() == latencyS.size())
        for (size_t p = 0; p < latencyS.size(); ++p) {
            const TimeInterval &interval = evaluation.interval->replicaLatency[p];
            latencyS[p] = *end == IntervalEnd::Low ? interval.loS : interval.hiS;
        }
    const std::vector<bool> fits = replicasThatFit(evaluation, plan);
    for (size_t p = 0; p < latencyS.size() && p < fits.size(); ++p)
        if (!fits[p])
            latencyS[p] = std::numeric_limits<double>::infinity();
    const InferWorkload &infer = problem.workload.infer;
    const double referenceS = infer.sloS ? 0.0 : referenceLatencyS(problem, costModel);
    const double sloS
        = infer.sloS ? *infer.sloS : infer.sloScale.value_or(kDefaultSloScale) * referenceS;
    return servingFigures(problem, latencyS, sloS, referenceS, options);
}

} // namespace

ServingFigures servePlan(const Problem &problem, const CostModel &costModel, const Plan &plan,
                         const ServingOptions &options)
{
    return servePlanWith(problem, costModel, plan, std::nullopt, options);
}

ServingFiguresInterval servePlanInterval(const Problem &problem, const CostModel &costModel,
                                         const Plan &plan, const ServingOptions &options)
{
    return {servePlanWith(problem, costModel, plan, IntervalEnd::Low, options),
            servePlanWith(problem, costModel, plan, IntervalEnd::High, options)};
}

} // namespace hetplan
