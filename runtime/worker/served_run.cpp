#include "runtime/worker/served_run.h"

#include "core/cost/cost_model.h"
#include "core/plan/plan.h"
#include "core/serving/serving_phases.h"
#include "runtime/model/model_config.h"

namespace hetplan::runtime {

Result<Problem> servedProblem(const Problem &planned, const ServingMeasurement &measured,
                              const std::string &source)
{
    const ServingRun &run = measured.run;
    if (!run.model.empty() && run.model != planned.model.name)
        return badInput(source + ": run.model is \"" + run.model + "\" but the plan serves \""
                        + planned.model.name + "\"; give the plan the run was made from");
    Problem asRun = planned;
    InferWorkload &infer = asRun.workload.infer;
    infer.promptLen = run.promptTokens;
    infer.outputLen = run.outputTokens;
    infer.batch = run.batch;
    infer.requestRatePerS = run.requestRatePerS;
    infer.sloS = run.sloS;
    infer.sloScale.reset();
    infer.precision = wirePrecision(run.backend);
    if (run.scale > 1) {
        auto config
            = scaledModelConfig(planned.model, run.promptTokens + run.outputTokens, run.scale);
        if (!config)
            return badInput(source + ": run.scale: " + config.error().message);
        asRun.model.hidden = config->hidden;
        asRun.model.ffnHidden = config->ffnHidden;
        asRun.model.vocab = config->vocab;
    }
    return asRun;
}

Result<ServingComparison> compareServedRun(const ServingMeasurement &measured,
                                           const std::string &source, const Problem &planned,
                                           const CostModel &costModel, const Plan &plan,
                                           const std::string &planSource)
{
    if (Status samePlan = checkServedPlan(measured, source, plan, planned.topology, planSource);
        !samePlan)
        return samePlan.error();
    auto asRun = servedProblem(planned, measured, source);
    if (!asRun)
        return asRun.error();
    const ServingPhases phases = servingPhases(*asRun, costModel, plan, requestsOf(measured));
    return compareServing(measured, phases);
}

} // namespace hetplan::runtime
