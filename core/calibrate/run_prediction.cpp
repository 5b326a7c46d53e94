#include "core/calibrate/run_prediction.h"

#include "core/cost/cost_model.h"
#include "core/cost/problem.h"

namespace hetplan {

Evaluation predictRun(const Topology &topology, const CostModel &model, const CalibrationRun &run)
{
    const Problem asRun{topology, run.model, run.workload};
    return model.evaluate(asRun, run.plan);
}

std::vector<Comparison> compareRun(const Topology &topology, const CostModel &model,
                                   const CalibrationRun &run)
{
    return compareMeasured(run.plan, predictRun(topology, model, run), run.measured);
}

} // namespace hetplan
