#include "core/cost/measured_comparison.h"

#include <cmath>
#include <map>

namespace hetplan {

double Comparison::relativeError() const
{
    // Below a nanosecond, a prediction is a rounding residue of a phase predicted as nothing
    // (a bubble of 1e-17 s read as "+2.7e16 %"), not a time a run could be compared with.
    constexpr double kNothingS = 1e-9;
    return predicted > kNothingS ? (measured - predicted) / predicted : std::nan("");
}

namespace {

// The hops a rank has: the previous stage's when it is not the first, the next stage's when it
// is not the last; sends on the TP leader only.
bool rankHas(const RankPhases &r, Phase hop, int stageCount)
{
    const bool prev = hop == Phase::HopInPrev || hop == Phase::HopOutPrev;
    const bool out = hop == Phase::HopOutPrev || hop == Phase::HopOutNext;
    const bool neighbour = prev ? r.stage > 0 : r.stage + 1 < stageCount;
    return neighbour && (!out || r.tpIndex == 0);
}

} // namespace

std::vector<Comparison> compareMeasured(const Plan &plan, const Evaluation &predicted,
                                        const Measurement &measured)
{
    std::vector<Comparison> rows;
    rows.emplace_back(PhaseKey::ofRun(Phase::Iteration), predicted.iterationS, measured.iterationS,
                      predicted.interval ? std::optional(predicted.interval->iteration)
                                         : std::nullopt);

    // The run's phases: the ending rank's on both sides (docs/runtime.md, "Phases per rank").
    const SendsReturn sends = sendsReturnOf(measured.run.backend);
    const std::vector<RankPhases> planned = planRankPhases(plan, predicted, sends);
    const Breakdown runPredicted
        = planned.empty() ? Breakdown{} : planned[endingRank(planned)].breakdown;
    for (const Phase phase : kBreakdownPhases)
        rows.emplace_back(PhaseKey::ofRun(phase), runPredicted.*phaseField(phase),
                          measured.breakdown.*phaseField(phase));

    // A stage's rows: the mean over its ranks on both sides.
    std::map<std::pair<int, int>, std::pair<Breakdown, int>> stageMeans;
    for (const RankPhases &r : planned) {
        auto &[sum, count] = stageMeans[{r.pipeline, r.stage}];
        for (const Phase phase : kBreakdownPhases)
            sum.*phaseField(phase) += r.breakdown.*phaseField(phase);
        ++count;
    }
    for (const MeasuredStage &s : measured.stages) {
        const auto it = stageMeans.find({s.pipeline, s.stage});
        if (it == stageMeans.end())
            continue;
        const auto &[sum, count] = it->second;
        for (const Phase phase : {Phase::Compute, Phase::TpComm, Phase::PpComm, Phase::DpComm})
            rows.emplace_back(PhaseKey::ofStage(s.pipeline, s.stage, phase),
                              sum.*phaseField(phase) / count, s.breakdown.*phaseField(phase));
    }

    // A rank's rows: the measured rank beside the prediction for its seat in the plan.
    const std::vector<MeasuredRankPhases> ran = measuredRankPhases(measured);
    std::vector<RankPhases> model;
    model.reserve(ran.size());
    for (const MeasuredRankPhases &r : ran)
        model.push_back(r.phases);
    if (model.empty() || !predictRankPhases(plan, predicted, model, sends))
        return rows;
    for (std::size_t i = 0; i < ran.size(); ++i) {
        const RankPhases &m = ran[i].phases;
        const RankPhases &p = model[i];
        const auto key
            = [&](Phase phase) { return PhaseKey::ofRank(m.pipeline, m.stage, m.rank, phase); };
        for (const Phase phase : kBreakdownPhases)
            rows.emplace_back(key(phase), p.breakdown.*phaseField(phase),
                              m.breakdown.*phaseField(phase));
        if (!ran[i].hopsRecorded)
            continue;
        const int stageCount = int(plan.pipelines[std::size_t(m.pipeline)].stages.size());
        for (const Phase hop : kHopPhases)
            if (rankHas(m, hop, stageCount))
                rows.emplace_back(key(hop), p.hops.*hopField(hop), m.hops.*hopField(hop));
    }
    return rows;
}

} // namespace hetplan
