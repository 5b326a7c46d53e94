#include "core/calibrate/serving_calibration.h"

#include "core/calibrate/calibration_record.h"
#include "core/calibrate/identifiability.h"
#include "core/calibrate/least_squares.h"
#include "core/calibrate/ran_on.h"
#include "core/catalog/catalog.h"
#include "core/cost/cost_model.h"
#include "core/model/topology.h"
#include "core/serving/serving_comparison.h"
#include "core/serving/serving_phases.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace hetplan {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// A simulated phase of no time cannot be compared in log space: it counts as this far off.
constexpr double kUnsimulatedResidual = 10;
// A memory bandwidth moves at most this factor either way; an achieved fraction within (0, 1].
constexpr double kBandwidthRange = 1000;

// A figure of one GPU type the fit may move.
struct Knob
{
    std::string type;
    bool bandwidth = false; // memory bandwidth (decode); else the achieved fraction (prefill)
    double before = 0;
    double lower = 0;
    double upper = 0;

    std::string field() const
    {
        return "/gpu_types/" + type + (bandwidth ? "/membw_GBps" : "/achieved_fraction");
    }
};

// The type's own entry in `cluster`, added from the topology (the catalog's) when it has none.
GpuType &ownType(Cluster &cluster, const Topology &topology, const std::string &name)
{
    auto own = std::find_if(cluster.gpuTypes.begin(), cluster.gpuTypes.end(),
                            [&](const GpuType &t) { return t.name == name; });
    if (own != cluster.gpuTypes.end())
        return *own;
    for (int g = 0; g < topology.gpuCount(); ++g)
        if (topology.gpuType(g).name == name) {
            cluster.gpuTypes.push_back(topology.gpuType(g));
            break;
        }
    return cluster.gpuTypes.back();
}

Cluster withValues(const Cluster &base, const Topology &topology, const std::vector<Knob> &knobs,
                   const std::vector<double> &values)
{
    Cluster cluster = base;
    for (std::size_t k = 0; k < knobs.size(); ++k) {
        GpuType &type = ownType(cluster, topology, knobs[k].type);
        (knobs[k].bandwidth ? type.memoryBandwidthGBps : type.achievedFraction) = values[k];
    }
    return cluster;
}

// The GPU types the runs' replicas use, two knobs each, at the cluster's values; `ran` says
// whether some run exercised the type (ranOn).
std::vector<Knob> knobsOf(const Topology &topology, std::span<const ServingCalibrationRun> runs,
                          std::vector<bool> &ran)
{
    std::map<std::string, std::pair<const GpuType *, bool>> types;
    for (const ServingCalibrationRun &run : runs)
        for (const Pipeline &pipeline : run.plan.pipelines)
            for (const Stage &stage : pipeline.stages)
                for (int g : stage.gpus) {
                    const GpuType &type = topology.gpuType(g);
                    auto &[known, exercised] = types[type.name];
                    known = &type;
                    exercised = exercised || ranOn(run.measured.run.backend, type);
                }
    std::vector<Knob> knobs;
    ran.clear();
    for (const auto &[name, use] : types) {
        const GpuType &type = *use.first;
        knobs.push_back({name, false, type.achievedFraction, 1e-4, 1.0});
        knobs.push_back({name, true, type.memoryBandwidthGBps,
                         type.memoryBandwidthGBps / kBandwidthRange,
                         type.memoryBandwidthGBps * kBandwidthRange});
        ran.insert(ran.end(), 2, use.second);
    }
    return knobs;
}

// Every replica's measured phases beside their simulation on `cluster`, in run order.
Result<std::vector<ServingPhaseFit>> simulate(const Cluster &cluster, const GpuCatalog &catalog,
                                              const CostModel &costModel,
                                              std::span<const ServingCalibrationRun> runs)
{
    auto topology = Topology::build(cluster, catalog);
    if (!topology)
        return topology.error();
    std::vector<ServingPhaseFit> rows;
    for (const ServingCalibrationRun &run : runs) {
        const Problem problem{*topology, run.model, run.workload};
        const ServingComparison compared = compareServing(
            run.measured, servingPhases(problem, costModel, run.plan, requestsOf(run.measured)));
        for (const ReplicaServingComparison &r : compared.replicas) {
            if (r.requests == 0)
                continue;
            if (r.prefillS.measured > 0)
                rows.push_back({run.source, r.replica, ServingPhase::Prefill, r.prefillS.measured,
                                r.prefillS.simulated, kNaN});
            if (r.tpotS.measured > 0)
                rows.push_back({run.source, r.replica, ServingPhase::DecodePerToken,
                                r.tpotS.measured, r.tpotS.simulated, kNaN});
        }
    }
    return rows;
}

double logError(double simulated, double measured)
{
    return simulated > 0 ? std::log(simulated / measured) : kUnsimulatedResidual;
}

double rmsLogError(const std::vector<ServingPhaseFit> &rows, bool after)
{
    double squares = 0; // dimensionless
    for (const ServingPhaseFit &row : rows)
        squares += std::pow(logError(after ? row.after : row.before, row.measured), 2);
    return rows.empty() ? 0 : std::sqrt(squares / double(rows.size()));
}

} // namespace

Result<ServingCalibration> calibrateServing(const Cluster &cluster, const GpuCatalog &catalog,
                                            const CostModel &costModel,
                                            std::span<const ServingCalibrationRun> runs,
                                            const std::stop_token &stop)
{
    auto topology = Topology::build(cluster, catalog);
    if (!topology)
        return badInput(topology.error().message);
    auto before = simulate(cluster, catalog, costModel, runs);
    if (!before)
        return badInput(before.error().message);
    for (const ServingCalibrationRun &run : runs)
        if (std::none_of(before->begin(), before->end(),
                         [&](const ServingPhaseFit &row) { return row.run == run.source; }))
            return badInput(run.source
                            + ": no replica completed a measured request; nothing to fit");
    std::vector<bool> ran;
    const std::vector<Knob> allKnobs = knobsOf(*topology, runs, ran);
    // Only what the runs exercised is fitted; the others are reported as they are.
    std::vector<Knob> knobs;
    std::vector<FittedFigure> didNotRun;
    for (std::size_t k = 0; k < allKnobs.size(); ++k) {
        if (ran[k]) {
            knobs.push_back(allKnobs[k]);
            continue;
        }
        FittedFigure f;
        f.field = allKnobs[k].field();
        f.before = f.after = f.fittedValue = allKnobs[k].before;
        f.standardError = kNaN;
        f.verdict = FigureVerdict::DidNotRun;
        f.note = "the runs did not exercise it (a CPU run measures CPU types only): kept";
        didNotRun.push_back(std::move(f));
    }
    if (knobs.empty())
        return badInput("the runs exercised none of the cluster's GPU types: a CPU run (gloo-cpu) "
                        "measures the cluster's CPU types only (a cluster imported from a probe "
                        "of the hosts), a GPU run its GPU types only");

    const auto valuesAt = [&](const std::vector<double> &logValues) {
        std::vector<double> values;
        values.reserve(logValues.size());
        for (std::size_t k = 0; k < knobs.size(); ++k)
            values.push_back(std::clamp(std::exp(logValues[k]), knobs[k].lower, knobs[k].upper));
        return values;
    };
    LeastSquaresProblem problem{
        [&](const std::vector<double> &logValues) {
            auto rows = simulate(withValues(cluster, *topology, knobs, valuesAt(logValues)),
                                 catalog, costModel, runs);
            std::vector<double> residuals;
            residuals.reserve(before->size());
            for (std::size_t i = 0; i < before->size(); ++i)
                residuals.push_back(rows ? logError((*rows)[i].before, (*rows)[i].measured)
                                         : kUnsimulatedResidual);
            return residuals;
        },
        {},
        {},
        stop};
    std::vector<double> x0;
    for (const Knob &k : knobs) {
        x0.push_back(std::log(k.before));
        problem.lower.push_back(std::log(k.lower));
        problem.upper.push_back(std::log(k.upper));
    }
    const LeastSquaresFit fit = fitLeastSquares(problem, x0);
    if (stop.stop_requested())
        return Error{ErrorKind::Cancelled, "calibration cancelled"};
    // Which figures the runs identify, at the start of the search, as for training
    // (calibration.cpp): at the fit's end a phase may sit at the kink between its compute and
    // memory terms, where the difference quotients make two figures look collinear.
    const std::vector<Identifiability> identified = identifiability(forwardJacobian(problem, x0));

    ServingCalibration result;
    result.iterations = fit.iterations;
    const std::vector<double> fitted = valuesAt(fit.x);
    std::vector<Knob> changed;
    std::vector<double> changedValues;
    for (std::size_t k = 0; k < knobs.size(); ++k) {
        FittedFigure f;
        f.field = knobs[k].field();
        f.before = knobs[k].before;
        f.fittedValue = fitted[k];
        f.after = f.before;
        f.standardError = kNaN;
        for (std::size_t i = 0; i < before->size(); ++i)
            if (fit.jacobian[i][k] != 0) {
                ++f.observations;
                const std::string &run = (*before)[i].run;
                if (std::find(f.runs.begin(), f.runs.end(), run) == f.runs.end())
                    f.runs.push_back(run);
            }
        const bool atBound
            = fit.x[k] <= problem.lower[k] + 1e-9 || fit.x[k] >= problem.upper[k] - 1e-9;
        if (identified[k] != Identifiability::Identified) {
            f.verdict = FigureVerdict::NotIdentifiable;
            f.note = identified[k] == Identifiability::NoDependence
                         ? "no measured phase depends on it: kept"
                         : "the phases cannot tell it from another figure: kept";
        } else if (atBound) {
            f.verdict = FigureVerdict::AtBound;
            f.note = "its fit ends at the bound of its range: kept";
        } else {
            f.verdict = FigureVerdict::Fitted;
            f.after = fitted[k];
            // The fit is in log space: a standard error σ of ln(value) is value·σ.
            f.standardError = f.after * fit.standardErrors[k];
        }
        if (f.changed()) {
            changed.push_back(knobs[k]);
            changedValues.push_back(f.after);
        }
        result.figures.push_back(std::move(f));
    }
    for (FittedFigure &f : didNotRun)
        result.figures.push_back(std::move(f));
    result.cluster = withValues(cluster, *topology, changed, changedValues);
    result.cluster.calibration = calibrationRecord(result.figures);
    auto after = simulate(result.cluster, catalog, costModel, runs);
    if (!after)
        return badInput(after.error().message);
    result.phases = std::move(before).value();
    for (std::size_t i = 0; i < result.phases.size(); ++i)
        result.phases[i].after = (*after)[i].before;
    result.rmsLogErrorBefore = rmsLogError(result.phases, false);
    result.rmsLogErrorAfter = rmsLogError(result.phases, true);
    return result;
}

} // namespace hetplan
