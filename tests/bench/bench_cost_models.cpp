// Budget: evaluating one plan of a 64-GPU cluster takes under 20 µs with the paper model.
#include "core/cost/cost_model.h"
#include "core/plan/plan.h"
#include "tests/bench/bench_util.h"

#include <cstdio>
#include <numeric>

namespace hetplan::bench {
namespace {

// 64 GPUs as `pipelines` pipelines of `stages` stages with TP `tp` inside one machine each.
Plan symmetricPlan(const Problem &problem, int pipelines, int stages, int tp)
{
    Plan plan;
    plan.workload = problem.workload;
    const int layers = problem.model.layers;
    int gpu = 0;
    for (int p = 0; p < pipelines; ++p) {
        Pipeline pipeline;
        pipeline.microBatch = 1;
        pipeline.microBatches = problem.workload.train.globalBatch / pipelines;
        for (int s = 0; s < stages; ++s) {
            Stage stage;
            stage.tp = tp;
            stage.gpus.resize(static_cast<size_t>(tp));
            std::iota(stage.gpus.begin(), stage.gpus.end(), gpu);
            gpu += tp;
            stage.layerBegin = layers * s / stages;
            stage.layerEnd = layers * (s + 1) / stages;
            pipeline.stages.push_back(std::move(stage));
        }
        plan.pipelines.push_back(std::move(pipeline));
    }
    return plan;
}

void benchEvaluate()
{
    const Problem problem = syntheticProblem(8, "llama2-70b");
    struct Shape
    {
        int pipelines, stages, tp;
    };
    for (const Shape shape : {Shape{2, 4, 8}, Shape{8, 4, 2}, Shape{4, 16, 1}}) {
        const Plan plan = symmetricPlan(problem, shape.pipelines, shape.stages, shape.tp);
        for (CostModelKind kind : allCostModels()) {
            const auto model = makeCostModel(kind);
            volatile double sink = 0;
            const double evaluateS
                = medianSecondsPerCall([&] { sink = model->evaluate(problem, plan).iterationS; });
            const double objectiveS
                = medianSecondsPerCall([&] { sink = model->objectiveS(problem, plan); });
            std::printf(
                "evaluate 64-GPU plan %dx%d stages tp%d  %-16s %8.2f us/evaluate (%9.0f/s)  "
                "%8.2f us/objective\n",
                shape.pipelines, shape.stages, shape.tp, std::string(model->name()).c_str(),
                evaluateS * 1e6, 1 / evaluateS, objectiveS * 1e6);
        }
    }
}

const Register kEvaluate("evaluate", benchEvaluate);

} // namespace
} // namespace hetplan::bench
