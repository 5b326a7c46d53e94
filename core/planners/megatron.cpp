// The Megatron-LM baseline (docs/architecture.md, planners): what a person gets by launching stock
// Megatron on every GPU of the cluster with the best symmetric (dp, tp, pp).
#include "core/planners/megatron.h"

#include "core/cost/cost_model.h"
#include "core/cost/problem.h"
#include "core/cost/validator.h"
#include "core/planners/closest_fit.h"
#include "core/planners/search_reporter.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

namespace hetplan {

namespace {

std::string sizesList(const std::vector<int> &sizes)
{
    std::string text;
    for (int b : sizes)
        text += (text.empty() ? "" : ", ") + std::to_string(b);
    return text;
}

} // namespace

std::string MegatronShape::describe() const
{
    return "dp=" + std::to_string(dp) + ", tp=" + std::to_string(tp) + ", pp=" + std::to_string(pp)
           + ", micro-batch " + std::to_string(microBatch);
}

Plan megatronPlan(const Problem &problem, const MegatronShape &shape)
{
    assert(shape.dp * shape.tp * shape.pp == problem.topology.gpuCount());
    assert(problem.model.layers % shape.pp == 0);
    const int layersPerStage = problem.model.layers / shape.pp;
    Plan plan;
    plan.workload = problem.workload;
    plan.model = problem.model.name;
    plan.cluster = problem.topology.cluster().name;
    for (int i = 0; i < shape.dp; ++i) {
        Pipeline pipeline;
        pipeline.microBatch = shape.microBatch;
        pipeline.microBatches = problem.workload.train.globalBatch / (shape.microBatch * shape.dp);
        for (int j = 0; j < shape.pp; ++j) {
            Stage stage;
            stage.tp = shape.tp;
            stage.dp = 1;
            stage.layerBegin = j * layersPerStage;
            stage.layerEnd = (j + 1) * layersPerStage;
            // Ranks with pp_rank j and dp_rank i, in tp_rank order.
            for (int t = 0; t < shape.tp; ++t)
                stage.gpus.push_back(j * shape.tp * shape.dp + i * shape.tp + t);
            pipeline.stages.push_back(std::move(stage));
        }
        plan.pipelines.push_back(std::move(pipeline));
    }
    return plan;
}

std::vector<MegatronShape> megatronShapes(const Problem &problem)
{
    const int gpus = problem.topology.gpuCount();
    const int layers = problem.model.layers;
    const int globalBatch = problem.workload.train.globalBatch;
    std::vector<int> microBatches = problem.workload.train.microBatchSizes;
    std::sort(microBatches.begin(), microBatches.end());
    microBatches.erase(std::unique(microBatches.begin(), microBatches.end()), microBatches.end());

    std::vector<MegatronShape> shapes;
    for (int pp = 1; pp <= gpus; ++pp) {
        if (gpus % pp != 0 || layers % pp != 0)
            continue;
        for (int tp = 1; tp <= gpus / pp; ++tp) {
            if ((gpus / pp) % tp != 0)
                continue;
            const int dp = gpus / (pp * tp);
            for (int b : microBatches)
                if (b >= 1 && globalBatch % (b * dp) == 0)
                    shapes.push_back({dp, tp, pp, b});
        }
    }
    return shapes;
}

Result<PlanSearch> MegatronPlanner::planImpl(const Problem &problem, const CostModel &costModel,
                                             const PlannerOptions &options, std::stop_token stop,
                                             ProgressSink &progress) const
{
    if (problem.workload.mode != Mode::Train)
        return Error{ErrorKind::Unsupported, "planner 'megatron' plans training only"};
    SearchReporter reporter(stop, progress);

    PlanSearch search;
    std::optional<Plan> best;
    double bestS = std::numeric_limits<double>::infinity();
    // Never return worse than the warm start, when it is usable at all.
    if (options.warmStart && validatePlan(problem, *options.warmStart, &costModel).empty()) {
        bestS = costModel.objectiveS(problem, *options.warmStart);
        if (std::isfinite(bestS))
            best = *options.warmStart;
    }

    ClosestFit closest;
    std::string tpRejection; // the first TP group the cost model refused
    std::string unusable;    // the first candidate that fits in memory but cannot run
    int evaluated = 0;
    for (const MegatronShape &shape : megatronShapes(problem)) {
        if (reporter.shouldStop()
            || (options.maxIterations > 0 && evaluated >= options.maxIterations))
            break;
        Plan plan = megatronPlan(problem, shape);

        std::string tpProblem;
        for (const Pipeline &pipeline : plan.pipelines)
            for (const Stage &stage : pipeline.stages)
                if (tpProblem.empty() && stage.tp > 1)
                    tpProblem = costModel.tpGroupProblem(problem, stage.gpus);
        if (!tpProblem.empty()) {
            if (tpRejection.empty())
                tpRejection = "(" + shape.describe() + "): " + tpProblem;
            continue;
        }

        ++evaluated;
        const double objectiveS = costModel.objectiveS(problem, plan);
        if (!std::isfinite(objectiveS)) {
            const Evaluation evaluation = costModel.evaluate(problem, plan);
            if (evaluation.fitsInMemory()) {
                if (unusable.empty())
                    unusable
                        = "(" + shape.describe() + "): "
                          + (evaluation.errors.empty() ? std::string("the cost model rejects it")
                                                       : evaluation.errors.front());
            } else if (closest.closer(evaluation)) {
                closest.record(evaluation, shape.describe());
            }
        } else if (objectiveS < bestS) {
            // Connectivity (and every other rule): a symmetric layout may put a stage or a
            // DP group across machines with no network path.
            const std::vector<PlanIssue> issues = validatePlan(problem, plan);
            if (issues.empty()) {
                best = std::move(plan);
                bestS = objectiveS;
            } else if (unusable.empty()) {
                unusable = "(" + shape.describe() + "): " + issues.front().message;
            }
        }
        reporter.report(evaluated, bestS, best ? &*best : nullptr);
    }

    search.trace = reporter.takeTrace();
    if (best) {
        search.plan = std::move(*best);
        return search;
    }
    if (reporter.stopRequested())
        return Error{ErrorKind::Cancelled,
                     "planning was cancelled before a symmetric plan that fits was found"};

    const int gpus = problem.topology.gpuCount();
    std::string message;
    if (!closest.empty()) {
        message = "no symmetric plan fits in memory: " + closest.describe(problem);
        if (!unusable.empty())
            message += "; the candidates that fit cannot run, e.g. " + unusable;
    } else if (!unusable.empty()) {
        message = "no symmetric plan fits: every candidate that fits in memory cannot run, e.g. "
                  + unusable;
    } else if (!tpRejection.empty()) {
        message = "no symmetric plan fits: every (dp, tp, pp) over the " + std::to_string(gpus)
                  + " GPUs needs a TP group the " + std::string(costModel.name())
                  + " cost model does not allow, e.g. " + tpRejection;
    } else {
        message = "no symmetric plan exists for the " + std::to_string(gpus)
                  + " GPUs: Megatron needs dp·tp·pp = " + std::to_string(gpus)
                  + " with pp dividing the model's " + std::to_string(problem.model.layers)
                  + " layers and global_batch " + std::to_string(problem.workload.train.globalBatch)
                  + " a multiple of micro-batch × dp (micro-batch candidates: "
                  + sizesList(problem.workload.train.microBatchSizes) + ")";
    }
    return Error{ErrorKind::NoPlanFits, message, closest.attachment(problem)};
}

} // namespace hetplan
