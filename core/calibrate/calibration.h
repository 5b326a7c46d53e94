#pragma once

// Calibration (docs/calibration.md): the cluster figures the `hetplan` cost model reads,
// fitted by least squares to what runs of plans on that cluster measured.

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

// One figure of the cluster that the fit may move.
struct FittedFigure
{
    std::string field; // "/gpu_types/RTX4090-24G/achieved_fraction", "/transports/pcie/efficiency"
    double before = 0;
    double after = 0;
    double standardError = 0; // of `after`; NaN when `note` says why there is none
    int observations = 0;     // phase times that depend on it
    std::string note;         // empty, or why the figure stayed or has no error bar
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
    // Root mean square of ln(predicted / measured) over the fitted phase times.
    double rmsLogErrorBefore = 0;
    double rmsLogErrorAfter = 0;
    int iterations = 0;
};

// Fits each GPU type's achieved fraction and each link kind's transport efficiency and
// per-hop latency that the runs exercise. Errors (BadInput) name the run and what is wrong:
// a run with no phase time to fit, or a plan the cluster cannot hold. A stop (checked between
// the fit's iterations) gives Cancelled.
Result<Calibration> calibrate(const Cluster &cluster, const GpuCatalog &catalog,
                              std::span<const CalibrationRun> runs,
                              const std::stop_token &stop = {});

} // namespace hetplan
