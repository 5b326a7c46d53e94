#include "core/calibrate/calibration_record.h"

#include "core/model/topology.h"

#include <cmath>
#include <map>
#include <optional>

namespace hetplan {
namespace {

// The slowest link between `from` and `to` (distinct GPUs only); none when there is no pair.
std::optional<LinkKind> slowestLink(const Topology &topology, const std::vector<int> &from,
                                    const std::vector<int> &to)
{
    std::optional<LinkKind> kind;
    double slowestGBps = 0;
    for (int a : from)
        for (int b : to) {
            if (a == b)
                continue;
            const double gbps = topology.bandwidthGBps(a, b);
            if (!kind || gbps < slowestGBps) {
                kind = topology.pairKind(a, b);
                slowestGBps = gbps;
            }
        }
    return kind;
}

// The link class a per-stage phase time crosses: within the stage (TP), to its neighbouring
// stages (PP, in and out), to the same stage of the other pipelines (DP).
std::optional<LinkKind> linkOf(const Topology &topology, const Plan &plan, const PhaseKey &key)
{
    const Pipeline &pipeline = plan.pipelines[size_t(*key.pipeline)];
    const size_t s = size_t(*key.stage);
    const std::vector<int> &gpus = pipeline.stages[s].gpus;
    std::vector<int> others;
    switch (key.phase) {
    case Phase::TpComm:
        return slowestLink(topology, gpus, gpus);
    case Phase::PpComm:
        for (size_t n : {s - 1, s + 1})
            if (n < pipeline.stages.size())
                others.insert(others.end(), pipeline.stages[n].gpus.begin(),
                              pipeline.stages[n].gpus.end());
        return slowestLink(topology, gpus, others);
    case Phase::DpComm:
        for (size_t p = 0; p < plan.pipelines.size(); ++p)
            if (p != size_t(*key.pipeline) && s < plan.pipelines[p].stages.size())
                others.insert(others.end(), plan.pipelines[p].stages[s].gpus.begin(),
                              plan.pipelines[p].stages[s].gpus.end());
        return slowestLink(topology, gpus, others.empty() ? gpus : others);
    default:
        return std::nullopt;
    }
}

} // namespace

CalibrationRecord calibrationRecord(const Topology &topology, std::span<const CalibrationRun> runs,
                                    const std::vector<FittedFigure> &figures,
                                    const std::vector<PhaseFit> &phases)
{
    CalibrationRecord record;
    for (const FittedFigure &f : figures)
        if (f.changed())
            record.figures.push_back(
                {f.field, f.after, std::isfinite(f.standardError) ? f.standardError : 0});
    struct Sums
    {
        int rows = 0;
        double sum = 0;
        double squares = 0;
    };
    // Keyed by phase, then link class (none sorts first): a stable order in the file.
    std::map<std::pair<Phase, std::optional<LinkKind>>, Sums> groups;
    for (const PhaseFit &row : phases) {
        if (!row.fitted || !(row.after > 0))
            continue;
        const CalibrationRun *run = nullptr;
        for (const CalibrationRun &r : runs)
            if (r.source == row.run)
                run = &r;
        if (!run)
            continue;
        const double relative = (row.measured - row.after) / row.after;
        Sums &sums = groups[{row.key.phase, linkOf(topology, run->plan, row.key)}];
        ++sums.rows;
        sums.sum += relative;
        sums.squares += relative * relative;
    }
    for (const auto &[key, sums] : groups)
        record.residuals.push_back({std::string(phaseName(key.first)), key.second, sums.rows,
                                    sums.sum / sums.rows, std::sqrt(sums.squares / sums.rows)});
    return record;
}

} // namespace hetplan
