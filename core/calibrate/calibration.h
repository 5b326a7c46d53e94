#pragma once

// Calibration (docs/calibration.md): the cluster figures the `hetplan` cost model reads,
// fitted by least squares to what runs of plans on that cluster measured.

#include "core/base/enum_names.h"
#include "core/base/result.h"
#include "core/cost/measurement.h"
#include "core/cost/phase_key.h"
#include "core/model/cluster.h"
#include "core/model/model_spec.h"
#include "core/model/workload.h"
#include "core/plan/plan.h"

#include <span>
#include <stop_token>
#include <string>
#include <vector>

namespace hetplan {

class GpuCatalog;

// One measured run: the plan as it ran, the model and workload as it trained them (scaled by
// --scale, the run's sequence length and precision), and what it measured.
struct CalibrationRun
{
    std::string source; // the measurement file, for reports and the cluster's origin
    Plan plan;          // GPU indices of the cluster being calibrated
    ModelSpec model;
    Workload workload;
    Measurement measured;
};

// What became of a figure the runs' plans use.
enum class FigureVerdict {
    Fitted,          // moved to the fit's value
    AcceptedAtBound, // at a bound of its range, moved because the caller accepted that
    AtBound,         // the fit ends at a bound of its range: refused, kept as it was
    NotIdentifiable, // no measured phase depends on it, or it moves them as others do: kept
    DidNotRun,       // the runs did not exercise it (CPU ranks stood in for the GPUs): kept
};

// As the JSON report spells them (docs/calibration.md, "The report as JSON").
inline constexpr EnumName<FigureVerdict> kFigureVerdictNames[] = {
    {"fitted", FigureVerdict::Fitted},
    {"accepted_at_bound", FigureVerdict::AcceptedAtBound},
    {"at_bound", FigureVerdict::AtBound},
    {"not_identifiable", FigureVerdict::NotIdentifiable},
    {"did_not_run", FigureVerdict::DidNotRun},
};

// One figure of the cluster that the fit may move.
struct FittedFigure
{
    std::string field; // "/gpu_types/RTX4090-24G/achieved_fraction", "/transports/pcie/efficiency"
    double before = 0;
    double after = 0; // == before unless changed()
    // Standard uncertainty of the fit's value (residual variance × (JᵀJ)⁻¹); NaN when `note`
    // says why there is none.
    double standardError = 0;
    double fittedValue = 0;        // where the fit put it, also where refused (AtBound)
    int observations = 0;          // fitted phase times that depend on it
    std::vector<std::string> runs; // the runs (sources) whose phase times depend on it
    FigureVerdict verdict = FigureVerdict::Fitted;
    std::string note; // empty, or why the figure stayed or has no error bar

    bool changed() const
    {
        return verdict == FigureVerdict::Fitted || verdict == FigureVerdict::AcceptedAtBound;
    }
    // Whether `value` of this figure means it has no effect: a transport's ceiling of 0, which
    // reports show as "none" (docs/calibration.md, "What is fitted").
    bool meansNone(double value) const { return value == 0 && field.ends_with("/ceiling_GBps"); }
};

// A phase time of a run (its totals, then per stage), measured beside the prediction before and
// after the fit.
struct PhaseFit
{
    std::string run; // CalibrationRun::source
    PhaseKey key;
    double measured = 0;
    double before = 0;
    double after = 0;
    bool fitted = false; // a per-stage time the fit used; the run's totals are only shown
};

struct Calibration
{
    Cluster cluster; // the calibrated cluster, its origin recording what it was fitted from
    std::vector<FittedFigure> figures;
    std::vector<PhaseFit> phases;
    // The GPU types the runs exercised (the figures of the others are kept).
    std::vector<std::string> gpuTypesRun;
    // Root mean square of ln(predicted / measured) over the fitted phase times.
    double rmsLogErrorBefore = 0;
    double rmsLogErrorAfter = 0;
    int iterations = 0;
};

struct CalibrationOptions
{
    // A figure whose fit ends at a bound of its range is refused (kept as it was, the others
    // fitted without it) unless this is set.
    bool acceptAtBound = false;
};

// Fits each GPU type's achieved fraction and each link kind's transport efficiency and
// per-hop latency that the runs exercise (docs/calibration.md): only figures the runs
// identify move; the calibrated cluster records their uncertainties and the fit's residuals
// (Cluster::calibration). Errors (BadInput) name the run and what is wrong: a run with no
// phase time to fit, runs that exercised none of the cluster's figures, or a plan the cluster
// cannot hold. A stop (checked between the fit's iterations) gives Cancelled.
Result<Calibration> calibrate(const Cluster &cluster, const GpuCatalog &catalog,
                              std::span<const CalibrationRun> runs,
                              const CalibrationOptions &options = {},
                              const std::stop_token &stop = {});

} // namespace hetplan
