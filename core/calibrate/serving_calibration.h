#pragma once

// Calibration from serving runs (docs/calibration.md, "Serving runs"): the figures the serving
// simulator reads for each GPU type the runs' replicas use (its achieved fraction, which sets
// prefill, and its memory bandwidth, which sets decode), fitted by least squares to what
// hetplan.serving-measurement/1 files measured per replica: the mean prefill and the mean time
// per output token, each beside the simulation of the run's own requests.

#include "core/base/result.h"
#include "core/calibrate/calibration.h"
#include "core/model/cluster.h"
#include "core/model/model_spec.h"
#include "core/model/workload.h"
#include "core/plan/plan.h"
#include "core/serving/serving_measurement.h"

#include <span>
#include <stop_token>
#include <string>
#include <vector>

namespace hetplan {

class CostModel;
class GpuCatalog;

// One measured serving run: its plan (GPU indices of the cluster being calibrated), the model
// and workload as it served them (its --scale, lengths, batch and precision) and what it
// measured.
struct ServingCalibrationRun
{
    std::string source; // the measurement file, for reports
    Plan plan;
    ModelSpec model;
    Workload workload;
    ServingMeasurement measured;
};

enum class ServingPhase { Prefill, DecodePerToken };

// One replica's phase in one run: measured beside simulated before and after the fit.
struct ServingPhaseFit
{
    std::string run;
    int replica = 0;
    ServingPhase phase = ServingPhase::Prefill;
    double measured = 0;
    double before = 0;
    double after = 0;
};

struct ServingCalibration
{
    Cluster cluster; // with the changed figures and their uncertainties (Cluster::calibration)
    std::vector<FittedFigure> figures;
    std::vector<ServingPhaseFit> phases;
    double rmsLogErrorBefore = 0; // over ln(simulated / measured) of the phases
    double rmsLogErrorAfter = 0;
    int iterations = 0;
};

// Fits, in log space, each GPU type's achieved fraction and memory bandwidth that the runs'
// replicas use. A figure no measured phase depends on, or one the phases cannot tell apart from
// another, is kept (NotIdentifiable); one whose fit ends at a bound of its range is kept
// (AtBound). Errors (BadInput) name the run: one with no completed request on any replica, or a
// plan the cluster cannot hold. A stop (checked between iterations) gives Cancelled.
Result<ServingCalibration> calibrateServing(const Cluster &cluster, const GpuCatalog &catalog,
                                            const CostModel &costModel,
                                            std::span<const ServingCalibrationRun> runs,
                                            const std::stop_token &stop = {});

} // namespace hetplan
