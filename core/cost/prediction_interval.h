#pragma once

// Prediction intervals (docs/cost-models.md, "Prediction intervals"): how sure an Evaluation is,
// from where each figure it used came from (the catalog, a probe, nccl-tests, another imported
// measurement, a calibration) and, for calibrated figures, how far the calibration's own
// predictions stayed from the runs it was fitted to.

#include "core/base/enum_names.h"
#include "core/cost/phase_key.h"
#include "core/cost/problem.h"
#include "core/model/cluster.h"
#include "core/plan/estimate.h"
#include "core/plan/plan.h"

#include <optional>
#include <string>

namespace hetplan {

// Where a figure the cost model reads comes from, from the widest default to the narrowest.
enum class FigureSource { Catalog, Imported, Probe, NcclTests, Calibrated };
inline constexpr EnumName<FigureSource> kFigureSourceNames[]
    = {{"catalog", FigureSource::Catalog},
       {"imported", FigureSource::Imported},
       {"probe", FigureSource::Probe},
       {"nccl-tests", FigureSource::NcclTests},
       {"calibrated", FigureSource::Calibrated}};

// The z of a two-sided 90 % interval of a normal distribution, and of its 90th percentile.
inline constexpr double kInterval90Z = 1.6449;
inline constexpr double kPercentile90Z = 1.2816;

// What one phase of one stage runs on: compute on a GPU type, communication over a link class;
// the bubble on neither. Calibration's residuals are kept per scope.
struct PhaseScope
{
    std::string gpuType;
    std::optional<LinkKind> linkKind;
    bool operator==(const PhaseScope &) const = default;
};

// The scope of `phase` (one of kBreakdownPhases) of stage `stage` of pipeline `pipeline`: its
// GPU type for compute; for TP its intra link, for PP its outgoing hop (the incoming one for
// the last stage), for DP its gradient group's link; none when the stage has no such traffic.
PhaseScope phaseScope(const Topology &topology, const Plan &plan, int pipeline, int stage,
                      Phase phase);

// The documented default 90 % relative half-width h of a phase priced from a figure of
// `source`: the measured time is expected in [t / (1 + h), t (1 + h)]. `link` matters for the
// catalog's communication figures.
double defaultHalfWidth(FigureSource source, Phase phase, std::optional<LinkKind> link);

// The half-width a calibration's residual gives: exp(z √(rms² + σ_heldOut²)) − 1, where
// σ_heldOut allows for a plan the calibration never saw.
double residualHalfWidth(const CalibrationResidual &residual);

// The interval of `evaluation` of `plan`; empty when the evaluation is invalid or infinite.
std::optional<PredictionInterval> predictionInterval(const Problem &problem, const Plan &plan,
                                                     const Evaluation &evaluation);

// The interval of one of kBreakdownPhases.
const TimeInterval &phaseInterval(const PredictionInterval &interval, Phase phase);

// How `compare --rank-by` orders plans (docs/cost-models.md, "Prediction intervals").
enum class RankBy { Mean, P90 };
inline constexpr EnumName<RankBy> kRankByNames[] = {{"mean", RankBy::Mean}, {"p90", RankBy::P90}};

// The figure `rankBy` orders by: the objective (mean), or its 90th percentile, the objective
// plus kPercentile90Z / kInterval90Z of the interval's upper half. Without an interval, the
// objective.
double rankingS(const Evaluation &evaluation, RankBy rankBy);

} // namespace hetplan
