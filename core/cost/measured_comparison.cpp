#include "core/cost/measured_comparison.h"

#include <cmath>

namespace hetplan {

double Comparison::relativeError() const
{
    return predicted > 0 ? (measured - predicted) / predicted : std::nan("");
}

std::vector<Comparison> compareMeasured(const Plan &plan, const Evaluation &predicted,
                                        const Measurement &measured)
{
    std::vector<Comparison> rows;
    rows.push_back({PhaseKey::ofRun(Phase::Iteration), predicted.iterationS, measured.iterationS});
    for (const Phase phase : kBreakdownPhases)
        rows.push_back({PhaseKey::ofRun(phase), predicted.breakdown.*phaseField(phase),
                        measured.breakdown.*phaseField(phase)});
    for (const MeasuredStage &s : measured.stages) {
        const auto p = std::size_t(s.pipeline);
        if (p >= predicted.pipelines.size() || p >= plan.pipelines.size()
            || std::size_t(s.stage) >= predicted.pipelines[p].stages.size())
            continue;
        const StageTiming &t = predicted.pipelines[p].stages[std::size_t(s.stage)];
        const double microBatches = plan.pipelines[p].microBatches;
        const auto row = [&](Phase phase, double predictedS) {
            rows.push_back({PhaseKey::ofStage(s.pipeline, s.stage, phase), predictedS,
                            s.breakdown.*phaseField(phase)});
        };
        row(Phase::Compute, t.computeS * microBatches);
        row(Phase::TpComm, t.tpCommS * microBatches);
        row(Phase::PpComm, t.hopS * microBatches);
        row(Phase::DpComm, t.dpCommS);
    }
    return rows;
}

} // namespace hetplan
