#include "core/calibrate/calibration.h"

#include "core/calibrate/calibration_residuals.h"
#include "core/calibrate/least_squares.h"
#include "core/catalog/catalog.h"
#include "core/cost/cost_model.h"
#include "core/cost/measured_comparison.h"
#include "core/model/topology.h"
#include "core/model/transport_figures.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace hetplan {
namespace {

// Phase times below this are timer noise on any backend; they are shown, not fitted.
constexpr double kMinMeasuredS = 1e-5;
// Pairs looked at to find the link kinds a plan exercises; beyond, only pairs inside stages
// and between neighbouring stages (a calibration run is small; this only bounds the work).
constexpr size_t kMaxPairScanGpus = 512;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

enum class Figure { AchievedFraction, Efficiency, LatencyFactor };

struct Parameter
{
    Figure figure;
    std::string gpuType; // AchievedFraction
    LinkKind link = LinkKind::Ethernet;
    double before = 0;   // the cluster's value as given
    bool nominal = true; // some pair of the link kind is not measured
    double lower = 0;    // natural units
    double upper = 0;
};

std::string linkName(LinkKind kind)
{
    return std::string(nameOf<LinkKind>(kLinkKindNames, kind));
}

std::string fieldOf(const Parameter &p)
{
    switch (p.figure) {
    case Figure::AchievedFraction:
        return "/gpu_types/" + p.gpuType + "/achieved_fraction";
    case Figure::Efficiency:
        return "/transports/" + linkName(p.link) + "/efficiency";
    case Figure::LatencyFactor:
        return "/transports/" + linkName(p.link) + "/latency_factor";
    }
    return {};
}

bool hasOwnEntry(const Cluster &cluster, LinkKind kind)
{
    return std::any_of(cluster.transports.begin(), cluster.transports.end(),
                       [&](const TransportFigures &t) { return t.kind == kind; });
}

// The GPU types and link kinds the runs' plans use, as parameters at the cluster's values.
std::vector<Parameter> parametersOf(const Topology &topology, std::span<const CalibrationRun> runs)
{
    std::set<std::string> types;
    std::map<LinkKind, bool> kinds; // kind -> some pair of it is not measured
    const auto pair = [&](int a, int b) {
        if (a == b)
            return;
        bool &nominal = kinds[topology.pairKind(a, b)];
        nominal = nominal || !topology.measuredPair(a, b);
    };
    for (const CalibrationRun &run : runs) {
        std::vector<int> gpus;
        for (const Pipeline &pipeline : run.plan.pipelines)
            for (size_t s = 0; s < pipeline.stages.size(); ++s) {
                const Stage &stage = pipeline.stages[s];
                gpus.insert(gpus.end(), stage.gpus.begin(), stage.gpus.end());
                for (int a : stage.gpus) {
                    types.insert(topology.gpuType(a).name);
                    for (int b : stage.gpus)
                        pair(a, b);
                    if (s + 1 < pipeline.stages.size())
                        for (int b : pipeline.stages[s + 1].gpus)
                            pair(a, b);
                }
            }
        if (gpus.size() <= kMaxPairScanGpus)
            for (int a : gpus)
                for (int b : gpus)
                    pair(a, b);
    }
    std::vector<Parameter> parameters;
    for (const std::string &name : types) {
        double fraction = 0;
        for (int g = 0; g < topology.gpuCount(); ++g)
            if (topology.gpuType(g).name == name)
                fraction = topology.gpuType(g).achievedFraction;
        parameters.push_back({Figure::AchievedFraction, name, {}, fraction, true, 1e-4, 1.0});
    }
    const Cluster &cluster = topology.cluster();
    for (const auto &[kind, nominal] : kinds) {
        // Defaults stand for nominal figures; where every pair of a kind is measured the
        // model reads them as they are, and so does the search at its start.
        const TransportFigures &used = transportFigures(cluster, kind);
        const bool asDefault = hasOwnEntry(cluster, kind) || nominal;
        const double efficiency = asDefault ? used.efficiency : 1.0;
        parameters.push_back({Figure::Efficiency, {}, kind, efficiency, asDefault, 1e-4, 10.0});
        parameters.push_back(
            {Figure::LatencyFactor, {}, kind, used.latencyFactor, asDefault, 1e-3, 1e3});
    }
    return parameters;
}

// The cluster with the parameters at `values` (natural units); `only` selects which.
Cluster withFigures(const Cluster &base, const Topology &topology,
                    const std::vector<Parameter> &parameters, const std::vector<double> &values,
                    const std::vector<bool> &only)
{
    Cluster cluster = base;
    for (size_t k = 0; k < parameters.size(); ++k) {
        if (!only[k])
            continue;
        const Parameter &p = parameters[k];
        if (p.figure == Figure::AchievedFraction) {
            auto own = std::find_if(cluster.gpuTypes.begin(), cluster.gpuTypes.end(),
                                    [&](const GpuType &t) { return t.name == p.gpuType; });
            if (own == cluster.gpuTypes.end()) {
                for (int g = 0; g < topology.gpuCount(); ++g)
                    if (topology.gpuType(g).name == p.gpuType) {
                        cluster.gpuTypes.push_back(topology.gpuType(g));
                        break;
                    }
                own = cluster.gpuTypes.end() - 1;
            }
            own->achievedFraction = values[k];
            continue;
        }
        auto entry = std::find_if(cluster.transports.begin(), cluster.transports.end(),
                                  [&](const TransportFigures &t) { return t.kind == p.link; });
        if (entry == cluster.transports.end()) {
            cluster.transports.push_back(transportFigures(base, p.link));
            entry = cluster.transports.end() - 1;
            // Where every pair of the kind is measured, the search starts from the figures
            // as measured, not from the defaults for nominal ones.
            if (!p.nominal) {
                entry->efficiency = 1;
                entry->latencyUs = 0;
            }
        }
        (p.figure == Figure::Efficiency ? entry->efficiency : entry->latencyFactor) = values[k];
    }
    return cluster;
}

// Every row of the measured-beside-predicted comparison of each run, in run order.
std::vector<PhaseFit> compareAll(const Cluster &cluster, const GpuCatalog &catalog,
                                 std::span<const CalibrationRun> runs, std::string &error)
{
    std::vector<PhaseFit> rows;
    auto topology = Topology::build(cluster, catalog);
    if (!topology) {
        error = topology.error().message;
        return rows;
    }
    const CostModel model(CostModelKind::HetPlan);
    for (const CalibrationRun &run : runs) {
        const Problem problem{*topology, run.model, run.workload};
        const Evaluation evaluation = model.evaluate(problem, run.plan);
        for (const Comparison &c : compareMeasured(run.plan, evaluation, run.measured)) {
            // The run's totals and the bubble (what the others leave) are shown, not fitted.
            const bool perStage = c.key.perStage() && c.key.phase != Phase::Bubble;
            rows.push_back({run.source, c.key, c.measured, c.predicted, kNaN, perStage});
        }
    }
    return rows;
}

double logError(double predicted, double measured)
{
    return std::log(std::max(predicted, 1e-12) / measured);
}

// exp of the search's log value, kept inside the range the cluster file accepts (exp(log 10)
// is not always 10).
double naturalValue(const Parameter &p, double logValue)
{
    return std::clamp(std::exp(logValue), p.lower, p.upper);
}

bool usable(const PhaseFit &row)
{
    return row.fitted && row.measured >= kMinMeasuredS && row.before > 0;
}

std::string joined(std::span<const CalibrationRun> runs)
{
    std::string text;
    for (const CalibrationRun &run : runs)
        text += (text.empty() ? "" : ", ") + run.source;
    return text;
}

} // namespace

Result<Calibration> calibrate(const Cluster &cluster, const GpuCatalog &catalog,
                              std::span<const CalibrationRun> runs, const std::stop_token &stop)
{
    if (runs.empty())
        return badInput("calibration needs at least one measured run");
    auto topology = Topology::build(cluster, catalog);
    if (!topology)
        return topology.error();
    std::string error;
    Calibration result;
    result.phases = compareAll(cluster, catalog, runs, error);
    if (!error.empty())
        return badInput(error);
    for (const CalibrationRun &run : runs)
        if (std::none_of(result.phases.begin(), result.phases.end(),
                         [&](const PhaseFit &row) { return row.run == run.source && usable(row); }))
            return badInput(run.source + ": no per-stage phase time of at least "
                            + std::to_string(kMinMeasuredS)
                            + " s that the plan predicts; nothing to fit (is it a measurement of "
                              "this plan on this cluster?)");

    std::vector<size_t> fittedRows;
    for (size_t i = 0; i < result.phases.size(); ++i)
        if (usable(result.phases[i]))
            fittedRows.push_back(i);
    const std::vector<Parameter> parameters = parametersOf(*topology, runs);
    const std::vector<bool> all(parameters.size(), true);

    // Log parameters keep every figure positive and make the errors relative.
    const auto residualsAt = [&](const std::vector<double> &logValues) {
        std::vector<double> values(logValues.size());
        for (size_t k = 0; k < values.size(); ++k)
            values[k] = naturalValue(parameters[k], logValues[k]);
        std::string failure;
        const std::vector<PhaseFit> rows = compareAll(
            withFigures(cluster, *topology, parameters, values, all), catalog, runs, failure);
        std::vector<double> r;
        r.reserve(fittedRows.size());
        for (size_t i : fittedRows)
            r.push_back(failure.empty() ? logError(rows[i].before, rows[i].measured) : 1e3);
        return r;
    };
    LeastSquaresProblem problem{residualsAt, {}, {}, stop};
    std::vector<double> x0;
    for (const Parameter &p : parameters) {
        problem.lower.push_back(std::log(p.lower));
        problem.upper.push_back(std::log(p.upper));
        x0.push_back(std::log(p.before));
    }
    const LeastSquaresFit fit = fitLeastSquares(problem, x0);
    if (stop.stop_requested())
        return Error{ErrorKind::Cancelled, "calibration stopped before the fit converged"};
    result.iterations = fit.iterations;

    std::vector<double> values(parameters.size());
    std::vector<bool> moved(parameters.size(), false);
    const std::string sources = joined(runs);
    for (size_t k = 0; k < parameters.size(); ++k) {
        const Parameter &p = parameters[k];
        FittedFigure figure{fieldOf(p), p.before, p.before, kNaN, 0, {}};
        for (const auto &row : fit.jacobian)
            figure.observations += std::abs(row[k]) > 1e-9 ? 1 : 0;
        if (figure.observations == 0) {
            figure.note = "not identifiable from these runs: no measured phase depends on it; kept";
        } else {
            moved[k] = true;
            values[k] = naturalValue(p, fit.x[k]);
            figure.after = values[k];
            figure.standardError = values[k] * fit.standardErrors[k];
            if (fit.x[k] >= problem.upper[k] - 1e-9 || fit.x[k] <= problem.lower[k] + 1e-9)
                figure.note = "at the bound of its range (" + std::to_string(p.lower) + " to "
                              + std::to_string(p.upper) + "): the runs ask for more; no error bar";
            else if (std::isnan(fit.standardErrors[k]))
                figure.note = "no error bar: these runs cannot separate it from the other "
                              "figures, or there are no more phase times than figures";
        }
        result.figures.push_back(figure);
    }

    result.cluster = withFigures(cluster, *topology, parameters, values, moved);
    const std::string how = "least-squares fit of the hetplan cost model over "
                            + std::to_string(fittedRows.size()) + " measured phase times";
    for (GpuType &type : result.cluster.gpuTypes)
        for (size_t k = 0; k < parameters.size(); ++k)
            if (moved[k] && parameters[k].gpuType == type.name)
                type.source += std::string(type.source.empty() ? "" : " ")
                               + "achieved_fraction calibrated from " + sources + ".";
    for (TransportFigures &t : result.cluster.transports)
        for (size_t k = 0; k < parameters.size(); ++k)
            if (moved[k] && parameters[k].figure != Figure::AchievedFraction
                && parameters[k].link == t.kind)
                t.source = "calibrated from " + sources + " (" + how + ")";
    ClusterOrigin &origin = result.cluster.origin;
    for (const CalibrationRun &run : runs)
        if (std::find(origin.sources.begin(), origin.sources.end(), run.source)
            == origin.sources.end())
            origin.sources.push_back(run.source);
    for (const FittedFigure &figure : result.figures) {
        if (figure.observations == 0)
            continue;
        std::erase_if(origin.figures,
                      [&](const MeasuredFigure &m) { return m.field == figure.field; });
        origin.figures.push_back({figure.field, sources, how, MeasuredBy::Calibration});
    }

    std::string failure;
    const std::vector<PhaseFit> after = compareAll(result.cluster, catalog, runs, failure);
    if (!failure.empty())
        return Error{ErrorKind::Internal, "calibrated cluster: " + failure};
    // Sums of squared residuals ln(predicted / measured), dimensionless.
    double squaredLogErrorSumBefore = 0;
    double squaredLogErrorSumAfter = 0;
    for (size_t i = 0; i < result.phases.size(); ++i) {
        result.phases[i].after = after[i].before;
        result.phases[i].fitted = usable(result.phases[i]);
        if (!result.phases[i].fitted)
            continue;
        squaredLogErrorSumBefore
            += std::pow(logError(result.phases[i].before, result.phases[i].measured), 2);
        squaredLogErrorSumAfter
            += std::pow(logError(result.phases[i].after, result.phases[i].measured), 2);
    }
    result.rmsLogErrorBefore = std::sqrt(squaredLogErrorSumBefore / double(fittedRows.size()));
    result.rmsLogErrorAfter = std::sqrt(squaredLogErrorSumAfter / double(fittedRows.size()));
    result.cluster.origin.residuals
        = calibrationResiduals(*topology, runs, result.phases, kMinMeasuredS);
    return result;
}

} // namespace hetplan
