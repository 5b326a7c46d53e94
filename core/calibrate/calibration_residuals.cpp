#include "core/calibrate/calibration_residuals.h"

#include "core/cost/prediction_interval.h"
#include "core/model/topology.h"

#include <algorithm>
#include <cmath>

namespace hetplan {

std::vector<CalibrationResidual> calibrationResiduals(const Topology &topology,
                                                      std::span<const CalibrationRun> runs,
                                                      std::span<const PhaseFit> phases,
                                                      double minMeasuredS)
{
    std::vector<CalibrationResidual> out;
    std::vector<double> squaredSums; // beside `out`
    for (const PhaseFit &row : phases) {
        if (!row.key.perStage() || row.key.rank || row.measured < minMeasuredS || row.after <= 0
            || !std::isfinite(row.after))
            continue;
        const auto run = std::find_if(runs.begin(), runs.end(),
                                      [&](const CalibrationRun &r) { return r.source == row.run; });
        if (run == runs.end())
            continue;
        const Plan &plan = run->plan;
        const int p = *row.key.pipeline;
        const int j = *row.key.stage;
        if (p < 0 || size_t(p) >= plan.pipelines.size() || j < 0
            || size_t(j) >= plan.pipelines[size_t(p)].stages.size())
            continue;
        const PhaseScope scope = phaseScope(topology, plan, p, j, row.key.phase);
        CalibrationResidual key{std::string(phaseName(row.key.phase)), scope.gpuType,
                                scope.linkKind, 0, 0};
        auto at = std::find_if(out.begin(), out.end(), [&](const CalibrationResidual &r) {
            return r.phase == key.phase && r.gpuType == key.gpuType && r.linkKind == key.linkKind;
        });
        if (at == out.end()) {
            out.push_back(key);
            squaredSums.push_back(0);
            at = out.end() - 1;
        }
        const double logError = std::log(row.after / row.measured);
        squaredSums[size_t(at - out.begin())] += logError * logError;
        ++at->count;
    }
    for (size_t i = 0; i < out.size(); ++i)
        out[i].rmsLogError = std::sqrt(squaredSums[i] / out[i].count);
    return out;
}

} // namespace hetplan
