#include "core/cost/measured_comparison.h"

#include <cmath>

namespace hetplan {
namespace {

struct Phase
{
    const char *name;
    double Breakdown::*field;
};

constexpr Phase kPhases[] = {{"compute", &Breakdown::computeS},
                             {"tp_comm", &Breakdown::tpCommS},
                             {"pp_comm", &Breakdown::ppCommS},
                             {"dp_comm", &Breakdown::dpCommS},
                             {"bubble", &Breakdown::bubbleS}};

} // namespace

double Comparison::relativeError() const
{
    return predicted > 0 ? (measured - predicted) / predicted : std::nan("");
}

std::vector<Comparison> compareMeasured(const Plan &plan, const Evaluation &predicted,
                                        const Measurement &measured)
{
    std::vector<Comparison> rows;
    rows.push_back({"iteration", predicted.iterationS, measured.iterationS});
    for (const Phase &phase : kPhases)
        rows.push_back(
            {phase.name, predicted.breakdown.*(phase.field), measured.breakdown.*(phase.field)});
    for (const MeasuredStage &s : measured.stages) {
        const auto p = std::size_t(s.pipeline);
        if (p >= predicted.pipelines.size() || p >= plan.pipelines.size()
            || std::size_t(s.stage) >= predicted.pipelines[p].stages.size())
            continue;
        const StageTiming &t = predicted.pipelines[p].stages[std::size_t(s.stage)];
        const double microBatches = plan.pipelines[p].microBatches;
        const std::string prefix
            = "p" + std::to_string(s.pipeline) + " s" + std::to_string(s.stage) + " ";
        rows.push_back({prefix + "compute", t.computeS * microBatches, s.breakdown.computeS});
        rows.push_back({prefix + "tp_comm", t.tpCommS * microBatches, s.breakdown.tpCommS});
        rows.push_back({prefix + "pp_comm", t.hopS * microBatches, s.breakdown.ppCommS});
        rows.push_back({prefix + "dp_comm", t.dpCommS, s.breakdown.dpCommS});
    }
    return rows;
}

} // namespace hetplan
