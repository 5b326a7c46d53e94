#include "core/calibrate/calibration.h"

#include "core/calibrate/calibration_design.h"
#include "core/calibrate/calibration_record.h"
#include "core/calibrate/calibration_residuals.h"
#include "core/calibrate/identifiability.h"
#include "core/calibrate/least_squares.h"
#include "core/calibrate/ran_on.h"
#include "core/calibrate/run_prediction.h"
#include "core/catalog/catalog.h"
#include "core/cost/cost_model.h"
#include "core/cost/layer_table.h"
#include "core/cost/measured_comparison.h"
#include "core/model/topology.h"
#include "core/model/transport_figures.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace hetplan {
namespace {

// Phase times below this are timer noise on any backend; they are shown, not fitted.
constexpr double kMinMeasuredS = 1e-5;
// Pairs looked at to find the link kinds a plan exercises; beyond, only pairs inside stages
// and between neighbouring stages (a calibration run is small; this only bounds the work).
constexpr size_t kMaxPairScanGpus = 512;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The ceiling's search range around its start (the fastest pair of the kind): far above it, it
// no longer binds on any pair.
constexpr double kCeilingRange = 1e3;
// The least retained bus bandwidth per doubling the fit tries (loss_per_doubling at most 0.9).
constexpr double kMinRetention = 0.1;

// A GPU type's compute is its achieved fraction of peak (GEMMs) or, where it rests on a measured
// layer table, its compute scale: a table can be too slow as well as too fast
// (docs/calibration.md). A link kind's host-side ceiling and its ring's retention (1 −
// loss_per_doubling) are secondary: fitted only where the runs separate them from the others.
enum class Figure { AchievedFraction, ComputeScale, Efficiency, LatencyFactor, Ceiling, Retention };

struct Parameter
{
    Figure figure;
    std::string gpuType; // AchievedFraction, ComputeScale
    LinkKind link = LinkKind::Ethernet;
    double before = 0;   // the cluster's value as given (natural units; Ceiling 0: none)
    bool nominal = true; // some pair of the link kind is not measured
    bool ran = true;     // some run exercised it (see ranOn)
    double lower = 0;    // natural units
    double upper = 0;
    double start = 0; // where the search starts: `before`, or the fastest pair for no ceiling
    // From here on the value of a secondary figure whose fit ended at the bound that means
    // "none" (no ceiling, no loss); NaN: not fixed.
    double fixed = std::numeric_limits<double>::quiet_NaN();

    bool secondary() const { return figure == Figure::Ceiling || figure == Figure::Retention; }
    // The value that means the figure has no effect, at the upper bound of its range.
    double none() const { return figure == Figure::Ceiling ? 0.0 : 1.0; }
    // As the cluster file and the report spell it: the loss, not the retention.
    double reported(double natural) const
    {
        return figure == Figure::Retention ? 1 - natural : natural;
    }
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
    case Figure::ComputeScale:
        return "/gpu_types/" + p.gpuType + "/compute_scale";
    case Figure::Efficiency:
        return "/transports/" + linkName(p.link) + "/efficiency";
    case Figure::LatencyFactor:
        return "/transports/" + linkName(p.link) + "/latency_factor";
    case Figure::Ceiling:
        return "/transports/" + linkName(p.link) + "/ceiling_GBps";
    case Figure::Retention:
        return "/transports/" + linkName(p.link) + "/loss_per_doubling";
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
    struct TypeUse
    {
        bool ran = false;   // some run exercised it
        bool table = false; // some stage's compute rests on its measured layer table
        bool gemm = false;  // some stage's compute rests on its achieved fraction
    };
    std::map<std::string, TypeUse> types;
    struct KindUse
    {
        bool nominal = false; // some pair of it is not measured
        bool ran = false;     // some run exercised a pair of it
        double slowestGBps = std::numeric_limits<double>::infinity(); // of its pairs, nominal
        double fastestGBps = 0;
        bool ring = false; // some run's replicas span three or more machines over it
    };
    std::map<LinkKind, KindUse> kinds;
    for (const CalibrationRun &run : runs) {
        const auto ran
            = [&](int g) { return ranOn(run.measured.run.backend, topology.gpuType(g)); };
        const auto pair = [&](int a, int b) {
            if (a == b)
                return;
            KindUse &use = kinds[topology.pairKind(a, b)];
            use.nominal = use.nominal || !topology.measuredPair(a, b);
            use.ran = use.ran || (ran(a) && ran(b));
            const double gbps = topology.bandwidthGBps(a, b);
            use.slowestGBps = std::min(use.slowestGBps, gbps);
            use.fastestGBps = std::max(use.fastestGBps, gbps);
        };
        std::vector<int> gpus;
        for (const Pipeline &pipeline : run.plan.pipelines)
            for (size_t s = 0; s < pipeline.stages.size(); ++s) {
                const Stage &stage = pipeline.stages[s];
                gpus.insert(gpus.end(), stage.gpus.begin(), stage.gpus.end());
                for (int a : stage.gpus) {
                    const GpuType &type = topology.gpuType(a);
                    TypeUse &use = types[type.name];
                    use.ran = use.ran || ran(a);
                    (matchingLayerTable(type, run.model, run.workload.train.seqLen,
                                        std::max(stage.tp, 1))
                         ? use.table
                         : use.gemm)
                        = true;
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
        // Every replica holds the first layer: its gradients' ring spans these machines.
        std::set<int> ringMachines;
        std::set<LinkKind> ringKinds;
        for (const Pipeline &pipeline : run.plan.pipelines)
            if (!pipeline.stages.empty())
                for (int g : pipeline.stages.front().gpus)
                    ringMachines.insert(topology.gpu(g).machine);
        for (const Pipeline &pipeline : run.plan.pipelines)
            for (const Pipeline &other : run.plan.pipelines)
                if (!pipeline.stages.empty() && !other.stages.empty()
                    && pipeline.stages.front().gpus.front() != other.stages.front().gpus.front())
                    ringKinds.insert(topology.pairKind(pipeline.stages.front().gpus.front(),
                                                       other.stages.front().gpus.front()));
        if (ringMachines.size() >= 3)
            for (LinkKind kind : ringKinds)
                kinds[kind].ring = true;
    }
    std::vector<Parameter> parameters;
    for (const auto &[name, use] : types) {
        const GpuType *type = nullptr;
        for (int g = 0; g < topology.gpuCount() && !type; ++g)
            if (topology.gpuType(g).name == name)
                type = &topology.gpuType(g);
        if (use.gemm)
            parameters.push_back({Figure::AchievedFraction,
                                  name,
                                  {},
                                  type->achievedFraction,
                                  true,
                                  use.ran,
                                  1e-4,
                                  1.0});
        if (use.table)
            parameters.push_back({Figure::ComputeScale,
                                  name,
                                  {},
                                  type->computeScale,
                                  true,
                                  use.ran,
                                  kMinComputeScale,
                                  kMaxComputeScale});
    }
    const Cluster &cluster = topology.cluster();
    for (const auto &[kind, use] : kinds) {
        // Defaults stand for nominal figures; where every pair of a kind is measured the
        // model reads them as they are, and so does the search at its start.
        const TransportFigures &used = transportFigures(cluster, kind);
        const bool asDefault = hasOwnEntry(cluster, kind) || use.nominal;
        const double efficiency = asDefault ? used.efficiency : 1.0;
        parameters.push_back(
            {Figure::Efficiency, {}, kind, efficiency, asDefault, use.ran, 1e-4, 10.0});
        parameters.push_back(
            {Figure::LatencyFactor, {}, kind, used.latencyFactor, asDefault, use.ran, 1e-3, 1e3});
        if (use.fastestGBps > kDistinctBandwidthRatio * use.slowestGBps) {
            const double start = used.ceilingGBps > 0 ? used.ceilingGBps : use.fastestGBps;
            parameters.push_back({Figure::Ceiling,
                                  {},
                                  kind,
                                  used.ceilingGBps,
                                  asDefault,
                                  use.ran,
                                  start / kCeilingRange,
                                  start * kCeilingRange});
            parameters.back().start = start;
        }
        if (use.ring)
            parameters.push_back({Figure::Retention,
                                  {},
                                  kind,
                                  1 - used.lossPerDoubling,
                                  asDefault,
                                  use.ran,
                                  kMinRetention,
                                  1.0});
    }
    for (Parameter &p : parameters)
        if (p.start == 0)
            p.start = p.before;
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
        if (p.figure == Figure::AchievedFraction || p.figure == Figure::ComputeScale) {
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
            (p.figure == Figure::AchievedFraction ? own->achievedFraction : own->computeScale)
                = values[k];
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
        switch (p.figure) {
        case Figure::Efficiency:
            entry->efficiency = values[k];
            break;
        case Figure::LatencyFactor:
            entry->latencyFactor = values[k];
            break;
        case Figure::Ceiling:
            entry->ceilingGBps = values[k];
            break;
        case Figure::Retention:
            entry->lossPerDoubling = p.reported(values[k]);
            break;
        case Figure::AchievedFraction:
        case Figure::ComputeScale:
            break;
        }
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
        for (const Comparison &c : compareRun(*topology, model, run)) {
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

std::string number(double value)
{
    std::ostringstream text;
    text << std::setprecision(4) << value;
    return text.str();
}

// The log-space fit over the parameters `free` (indices into `parameters`); the others stay
// at their values before.
struct FreeFit
{
    std::vector<size_t> free;
    LeastSquaresFit fit;
    std::vector<double> lower; // log bounds of the free ones
    std::vector<double> upper;
};

class Fitter
{
public:
    Fitter(const Cluster &cluster, const Topology &topology, const GpuCatalog &catalog,
           std::span<const CalibrationRun> runs, const std::vector<Parameter> &parameters,
           std::vector<size_t> rows)
        : m_cluster(cluster)
        , m_topology(topology)
        , m_catalog(catalog)
        , m_runs(runs)
        , m_parameters(parameters)
        , m_rows(std::move(rows))
    {}

    // Natural values: the parameters' before, `free` ones at exp(logValues).
    std::vector<double> valuesAt(const std::vector<size_t> &free,
                                 const std::vector<double> &logValues) const
    {
        std::vector<double> values;
        for (const Parameter &p : m_parameters)
            values.push_back(std::isnan(p.fixed) ? p.before : p.fixed);
        for (size_t a = 0; a < free.size(); ++a)
            values[free[a]] = naturalValue(m_parameters[free[a]], logValues[a]);
        return values;
    }

    LeastSquaresProblem problem(const std::vector<size_t> &free, const std::stop_token &stop) const
    {
        LeastSquaresProblem problem{[this, free](const std::vector<double> &logValues) {
                                        return residuals(valuesAt(free, logValues));
                                    },
                                    {},
                                    {},
                                    stop};
        for (size_t k : free) {
            problem.lower.push_back(std::log(m_parameters[k].lower));
            problem.upper.push_back(std::log(m_parameters[k].upper));
        }
        return problem;
    }

    std::vector<double> start(const std::vector<size_t> &free) const
    {
        std::vector<double> x0;
        x0.reserve(free.size());
        for (size_t k : free)
            x0.push_back(std::log(m_parameters[k].start));
        return x0;
    }

    FreeFit fit(const std::vector<size_t> &free, const std::stop_token &stop) const
    {
        const LeastSquaresProblem p = problem(free, stop);
        return {free, fitLeastSquares(p, start(free)), p.lower, p.upper};
    }

private:
    std::vector<double> residuals(const std::vector<double> &values) const
    {
        std::string failure;
        const std::vector<bool> all(m_parameters.size(), true);
        const std::vector<PhaseFit> rows
            = compareAll(withFigures(m_cluster, m_topology, m_parameters, values, all), m_catalog,
                         m_runs, failure);
        std::vector<double> r;
        r.reserve(m_rows.size());
        for (size_t i : m_rows)
            r.push_back(failure.empty() ? logError(rows[i].before, rows[i].measured) : 1e3);
        return r;
    }

    const Cluster &m_cluster;
    const Topology &m_topology;
    const GpuCatalog &m_catalog;
    std::span<const CalibrationRun> m_runs;
    const std::vector<Parameter> &m_parameters;
    std::vector<size_t> m_rows;
};

// Root mean square of ln(predicted / measured) over the fitted rows, before or after the fit.
double rmsLogError(const std::vector<PhaseFit> &rows, bool after)
{
    double squares = 0; // dimensionless
    int count = 0;
    for (const PhaseFit &row : rows)
        if (usable(row)) {
            squares += std::pow(logError(after ? row.after : row.before, row.measured), 2);
            ++count;
        }
    return count > 0 ? std::sqrt(squares / count) : 0;
}

bool atBound(const FreeFit &f, size_t a)
{
    return f.fit.x[a] >= f.upper[a] - 1e-9 || f.fit.x[a] <= f.lower[a] + 1e-9;
}

std::string rangeText(const Parameter &p)
{
    const double first = p.reported(p.lower);
    const double last = p.reported(p.upper);
    return number(std::min(first, last)) + " to " + number(std::max(first, last));
}

} // namespace

Result<Calibration> calibrate(const Cluster &cluster, const GpuCatalog &catalog,
                              std::span<const CalibrationRun> runs,
                              const CalibrationOptions &options, const std::stop_token &stop)
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
    std::vector<Parameter> parameters = parametersOf(*topology, runs);
    for (const Parameter &p : parameters)
        if (!p.gpuType.empty() && p.ran
            && std::find(result.gpuTypesRun.begin(), result.gpuTypesRun.end(), p.gpuType)
                   == result.gpuTypesRun.end())
            result.gpuTypesRun.push_back(p.gpuType);
    std::vector<size_t> ran;
    for (size_t k = 0; k < parameters.size(); ++k)
        if (parameters[k].ran)
            ran.push_back(k);
    const Fitter fitter(cluster, *topology, catalog, runs, parameters, fittedRows);

    // Which figures the runs identify, at the start of the search. A secondary figure the runs
    // do not separate is left out, and the others judged again without it.
    std::vector<std::vector<double>> jacobian;
    std::vector<Identifiability> identified;
    std::vector<size_t> unseparated;
    for (;;) {
        jacobian = forwardJacobian(fitter.problem(ran, stop), fitter.start(ran));
        identified = identifiability(jacobian);
        std::vector<size_t> kept;
        for (size_t a = 0; a < ran.size(); ++a)
            (parameters[ran[a]].secondary() && identified[a] != Identifiability::Identified
                 ? unseparated
                 : kept)
                .push_back(ran[a]);
        if (kept.size() == ran.size())
            break;
        ran = std::move(kept);
    }
    for (const Parameter &p : parameters) {
        FittedFigure figure;
        figure.field = fieldOf(p);
        figure.before = figure.after = figure.fittedValue = p.reported(p.before);
        figure.standardError = kNaN;
        figure.verdict = FigureVerdict::DidNotRun;
        figure.note = "did not run: the runs' ranks stood in for other hardware (a CPU run of "
                      "a GPU plan); kept";
        result.figures.push_back(std::move(figure));
    }
    for (size_t k : unseparated) {
        FittedFigure &figure = result.figures[k];
        figure.verdict = FigureVerdict::NotIdentifiable;
        figure.note = parameters[k].figure == Figure::Ceiling
                          ? "not identifiable: the runs do not separate it from the link kind's "
                            "efficiency; kept (all-reduces over pairs of different bandwidths do)"
                          : "not identifiable: the runs do not separate it from the link kind's "
                            "efficiency; kept (an all-reduce over three or more machines and one "
                            "over two do)";
    }
    std::vector<size_t> free;
    std::vector<std::string> collinear;
    for (size_t a = 0; a < ran.size(); ++a) {
        FittedFigure &figure = result.figures[ran[a]];
        std::set<std::string> sources;
        for (size_t i = 0; i < jacobian.size(); ++i)
            if (std::abs(jacobian[i][a]) > 1e-9) {
                ++figure.observations;
                sources.insert(result.phases[fittedRows[i]].run);
            }
        for (const CalibrationRun &run : runs)
            if (sources.contains(run.source))
                figure.runs.push_back(run.source);
        figure.verdict = FigureVerdict::Fitted;
        figure.note.clear();
        if (identified[a] == Identifiability::Identified) {
            free.push_back(ran[a]);
            continue;
        }
        figure.verdict = FigureVerdict::NotIdentifiable;
        if (identified[a] == Identifiability::NoDependence) {
            figure.note = "not identifiable: no measured phase depends on it; kept";
        } else {
            collinear.push_back(figure.field);
        }
    }
    for (FittedFigure &figure : result.figures)
        if (figure.verdict == FigureVerdict::NotIdentifiable && figure.note.empty()) {
            std::string others;
            for (const std::string &field : collinear)
                if (field != figure.field)
                    others += (others.empty() ? "" : ", ") + field;
            figure.note = "not identifiable: these runs move it only together with " + others
                          + "; kept (runs of other shapes or sizes separate them)";
        }

    // The fit over the identified figures; one that ends at a bound is refused (kept) and the
    // others fitted again without it, unless the caller accepts it.
    FreeFit fit{free, {}, {}, {}};
    while (!fit.free.empty()) {
        fit = fitter.fit(fit.free, stop);
        if (stop.stop_requested())
            return Error{ErrorKind::Cancelled, "calibration stopped before the fit converged"};
        result.iterations += fit.fit.iterations;
        std::vector<size_t> within;
        for (size_t a = 0; a < fit.free.size(); ++a) {
            const size_t k = fit.free[a];
            Parameter &p = parameters[k];
            if (p.secondary() && fit.fit.x[a] >= fit.upper[a] - 1e-9) {
                // At the bound that means none: a finding, not a failure of the model.
                p.fixed = p.none();
                FittedFigure &figure = result.figures[k];
                figure.fittedValue = p.reported(p.none());
                figure.note
                    = p.figure == Figure::Ceiling
                          ? "none: the runs show no ceiling below " + number(p.upper) + " GB/s"
                          : "none: the runs lose no bus bandwidth over more machines";
                continue;
            }
            if (!atBound(fit, a) || options.acceptAtBound) {
                within.push_back(k);
                continue;
            }
            FittedFigure &figure = result.figures[k];
            figure.verdict = FigureVerdict::AtBound;
            figure.fittedValue = p.reported(naturalValue(p, fit.fit.x[a]));
            figure.note = "REFUSED: the fit ends at the bound of its range ("
                          + number(figure.fittedValue) + ", range " + rangeText(parameters[k])
                          + "): the model cannot explain these runs with it; kept at "
                          + number(figure.before) + " unless accepted explicitly";
        }
        if (within.size() == fit.free.size())
            break;
        fit.free = std::move(within);
    }

    std::vector<double> values = fitter.valuesAt(fit.free, fit.fit.x);
    std::vector<bool> moved(parameters.size(), false);
    for (size_t k = 0; k < parameters.size(); ++k)
        if (!std::isnan(parameters[k].fixed)) {
            moved[k] = true;
            FittedFigure &figure = result.figures[k];
            figure.after = figure.fittedValue;
            figure.standardError = kNaN;
        }
    for (size_t a = 0; a < fit.free.size(); ++a) {
        const size_t k = fit.free[a];
        FittedFigure &figure = result.figures[k];
        moved[k] = true;
        figure.after = figure.fittedValue = parameters[k].reported(values[k]);
        figure.standardError = values[k] * fit.fit.standardErrors[a];
        if (atBound(fit, a)) {
            figure.verdict = FigureVerdict::AcceptedAtBound;
            figure.note = "AT BOUND, accepted: the fit ends at the bound of its range ("
                          + rangeText(parameters[k]) + "); no error bar";
        } else if (std::isnan(fit.fit.standardErrors[a])) {
            figure.note = "no error bar: there are no more phase times than figures, or the "
                          "runs cannot separate it from the others at the fitted values";
        }
    }
    result.cluster = withFigures(cluster, *topology, parameters, values, moved);
    if (std::none_of(moved.begin(), moved.end(), [](bool m) { return m; })) {
        // Nothing to change (no figure ran, or none is identified): the cluster as it was.
        std::string failure;
        const std::vector<PhaseFit> same = compareAll(cluster, catalog, runs, failure);
        for (size_t i = 0; i < result.phases.size(); ++i) {
            result.phases[i].after = same[i].before;
            result.phases[i].fitted = usable(result.phases[i]);
        }
        result.rmsLogErrorAfter = result.rmsLogErrorBefore = rmsLogError(result.phases, false);
        result.cluster = cluster;
        return result;
    }

    const std::string sources = joined(runs);
    const std::string how = "least-squares fit of the hetplan cost model over "
                            + std::to_string(fittedRows.size()) + " measured phase times";
    for (GpuType &type : result.cluster.gpuTypes)
        for (size_t k = 0; k < parameters.size(); ++k)
            if (moved[k] && parameters[k].gpuType == type.name) {
                type.source += std::string(type.source.empty() ? "" : " ");
                type.source += parameters[k].figure == Figure::ComputeScale ? "compute_scale"
                                                                            : "achieved_fraction";
                type.source += " calibrated from " + sources + ".";
            }
    for (TransportFigures &t : result.cluster.transports)
        for (size_t k = 0; k < parameters.size(); ++k)
            if (moved[k] && parameters[k].gpuType.empty() && parameters[k].link == t.kind)
                t.source = "calibrated from " + sources + " (" + how + ")";
    ClusterOrigin &origin = result.cluster.origin;
    for (const CalibrationRun &run : runs)
        if (std::find(origin.sources.begin(), origin.sources.end(), run.source)
            == origin.sources.end())
            origin.sources.push_back(run.source);
    for (const FittedFigure &figure : result.figures) {
        if (!figure.changed())
            continue;
        std::erase_if(origin.figures,
                      [&](const MeasuredFigure &m) { return m.field == figure.field; });
        origin.figures.push_back({figure.field, sources, how, MeasuredBy::Calibration});
    }

    std::string failure;
    const std::vector<PhaseFit> after = compareAll(result.cluster, catalog, runs, failure);
    if (!failure.empty())
        return Error{ErrorKind::Internal, "calibrated cluster: " + failure};
    for (size_t i = 0; i < result.phases.size(); ++i) {
        result.phases[i].after = after[i].before;
        result.phases[i].fitted = usable(result.phases[i]);
    }
    result.rmsLogErrorBefore = rmsLogError(result.phases, false);
    result.rmsLogErrorAfter = rmsLogError(result.phases, true);
    result.cluster.calibration = calibrationRecord(result.figures);
    result.cluster.origin.residuals
        = calibrationResiduals(*topology, runs, result.phases, kMinMeasuredS);
    return result;
}

} // namespace hetplan
