// Calibration (docs/calibration.md): the least-squares fit, and the cluster figures it
// recovers from runs whose times a known cluster would produce.
#include "core/calibrate/calibration.h"
#include "core/calibrate/least_squares.h"
#include "core/cost/cost_model.h"
#include "core/io/formats.h"
#include "core/model/transport_figures.h"
#include "cost_test_fixtures.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace hetplan;
using namespace hetplan::testing;

namespace {

// Two pipelines of two stages on machine A (tp 2 and tp 1): compute, TP, PP and DP times.
Plan twoByTwo()
{
    Plan plan;
    plan.pipelines = {pipeline(1, 4, {stage({0, 1}, 2, 1, 0, 4), stage({2}, 1, 1, 4, 8)}),
                      pipeline(1, 4, {stage({3, 4}, 2, 1, 0, 4), stage({5}, 1, 1, 4, 8)})};
    return plan;
}

// What a GPU run of `plan` on `truth` measures, if the hetplan model were exact: every rank's
// predicted phases (core/cost/rank_phases.h) as its one iteration, each phase times
// 1 + noise[(rank * 5 + phase) % size] where noise is given, summarized as a run's are.
Measurement measuredOn(const Cluster &truth, const Plan &plan, const Workload &workload,
                       const std::vector<double> &noise = {})
{
    const Problem problem = makeProblem(truth, smallModel(), workload);
    const Evaluation e = CostModel(CostModelKind::HetPlan).evaluate(problem, plan);
    return measuredAsPredicted(plan, e, [&](const RankPhases &r, Breakdown &breakdown) {
        if (!noise.empty())
            for (const Phase phase : kBreakdownPhases)
                breakdown.*phaseField(phase)
                    *= 1 + noise[(size_t(r.rank) * 5 + size_t(phase)) % noise.size()];
    });
}

// One machine of 6 Fast GPUs on PCIe, so every link the plan uses is one kind.
Cluster oneBox()
{
    Cluster c;
    c.name = "box";
    c.machines = {machine("A", "Fast", 6, 20, 5)};
    return c;
}

// The truth the runs below are made with: Fast GPUs at 0.3 of peak, PCIe at 0.4 of its
// bandwidth and 2.5 times its latency.
Cluster truthBox(double efficiency = 0.4)
{
    Cluster truth = oneBox();
    GpuType fast = *testCatalog().find("Fast");
    fast.achievedFraction = 0.3;
    truth.gpuTypes = {fast};
    truth.transports = {{LinkKind::Pcie, efficiency, 0.0, 2.5, 0.0, 0.0, ""}};
    return truth;
}

// Three stages of one GPU on one pipeline, four micro-batches: compute and PP hops only.
Plan threeStages()
{
    Plan plan;
    plan.pipelines = {
        pipeline(1, 4, {stage({0}, 1, 1, 0, 3), stage({1}, 1, 1, 3, 6), stage({2}, 1, 1, 6, 8)})};
    return plan;
}

const FittedFigure &figureOf(const Calibration &c, const std::string &field)
{
    for (const FittedFigure &f : c.figures)
        if (f.field == field)
            return f;
    qFatal("no figure %s", field.c_str());
}

} // namespace

class TestCalibration : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void leastSquaresFindsALineAndItsErrors()
    {
        // y = 2 + 3x with noise ±0.1; the third parameter moves no residual.
        const std::vector<double> xs{0, 1, 2, 3, 4, 5};
        const std::vector<double> noise{0.1, -0.1, 0.05, -0.05, 0.1, -0.1};
        LeastSquaresProblem problem{[&](const std::vector<double> &p) {
                                        std::vector<double> r;
                                        for (size_t i = 0; i < xs.size(); ++i)
                                            r.push_back(p[0] + p[1] * xs[i]
                                                        - (2 + 3 * xs[i] + noise[i]));
                                        return r;
                                    },
                                    {-100, -100, -100},
                                    {100, 100, 100},
                                    {}};
        const LeastSquaresFit fit = fitLeastSquares(problem, {0, 0, 7});
        QVERIFY(std::abs(fit.x[0] - 2) < 0.2);
        QVERIFY(std::abs(fit.x[1] - 3) < 0.1);
        QCOMPARE(fit.x[2], 7.0);
        QVERIFY(fit.standardErrors[0] > 0 && fit.standardErrors[0] < 0.3);
        QVERIFY(std::isnan(fit.standardErrors[2]));
    }

    void recoversTheFiguresARunWasMadeWith()
    {
        Cluster truth = oneBox();
        GpuType fast = *testCatalog().find("Fast");
        fast.achievedFraction = 0.3;
        truth.gpuTypes = {fast};
        truth.transports = {{LinkKind::Pcie, 0.4, 0.0, 2.5, 0.0, 0.0, ""}};
        const Workload workload = trainWorkload(8, 512);
        const Plan plan = twoByTwo();
        const std::vector<CalibrationRun> runs{
            {"run.json", plan, smallModel(), workload, measuredOn(truth, plan, workload)}};

        const auto result = calibrate(oneBox(), testCatalog(), runs);
        QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
        qInfo("rms log error %.3g -> %.3g", result->rmsLogErrorBefore, result->rmsLogErrorAfter);
        QVERIFY(result->rmsLogErrorBefore > 0.1);
        QVERIFY(result->rmsLogErrorAfter < 1e-3);
        const auto figure = [&](const std::string &field) {
            for (const FittedFigure &f : result->figures)
                if (f.field == field)
                    return f;
            qFatal("no figure %s", field.c_str());
        };
        QVERIFY(std::abs(figure("/gpu_types/Fast/achieved_fraction").after - 0.3) < 1e-3);
        QVERIFY(std::abs(figure("/transports/pcie/efficiency").after - 0.4) < 1e-3);
        QVERIFY(std::abs(figure("/transports/pcie/latency_factor").after - 2.5) < 1e-2);
        // The calibrated cluster carries them, and says where they came from.
        const Cluster &c = result->cluster;
        QCOMPARE(c.transports.size(), size_t(1));
        QVERIFY(std::abs(c.transports[0].efficiency - 0.4) < 1e-3);
        QCOMPARE(c.origin.sources, std::vector<std::string>{"run.json"});
        QCOMPARE(c.origin.figures.size(), size_t(3));
        for (const PhaseFit &p : result->phases)
            if (p.fitted)
                QVERIFY(std::abs(p.after - p.measured) <= 1e-3 * p.measured);
        // The rows are keyed, not labelled: the run's totals are shown, its stages' times fitted.
        const auto row = [&](const PhaseKey &key) {
            return std::find_if(result->phases.begin(), result->phases.end(),
                                [&](const PhaseFit &p) { return p.key == key; });
        };
        QVERIFY(row(PhaseKey::ofRun(Phase::Iteration)) != result->phases.end());
        QVERIFY(!row(PhaseKey::ofRun(Phase::Compute))->fitted);
        QVERIFY(row(PhaseKey::ofStage(1, 1, Phase::Compute))->fitted);
        for (const PhaseFit &p : result->phases)
            QCOMPARE(p.fitted, p.key.perStage() && p.measured >= 1e-5 && p.before > 0);
    }

    void stopsWhenAsked()
    {
        const Workload workload = trainWorkload(8, 512);
        const std::vector<CalibrationRun> runs{{"run.json", twoByTwo(), smallModel(), workload,
                                                measuredOn(oneBox(), twoByTwo(), workload)}};
        std::stop_source stop;
        stop.request_stop();
        const auto result = calibrate(oneBox(), testCatalog(), runs, {}, stop.get_token());
        QVERIFY(!result.ok());
        QCOMPARE(result.error().kind, ErrorKind::Cancelled);
    }

    void aFigureNoRunDependsOnIsKept()
    {
        // One stage per pipeline at tp 1 on one GPU each: compute only, and DP between A:0
        // and A:1 over PCIe; no figure of another machine's type is in play.
        const Workload workload = trainWorkload(2, 512);
        Plan plan;
        plan.pipelines
            = {pipeline(1, 1, {stage({0}, 1, 1, 0, 8)}), pipeline(1, 1, {stage({1}, 1, 1, 0, 8)})};
        Measurement single = measuredOn(oneBox(), plan, workload);
        for (MeasuredStage &s : single.stages)
            s.breakdown.dpCommS = 0; // a run that did not time its gradient sync
        const std::vector<CalibrationRun> runs{{"one.json", plan, smallModel(), workload, single}};
        const auto result = calibrate(oneBox(), testCatalog(), runs);
        QVERIFY(result.ok());
        for (const FittedFigure &f : result->figures)
            if (f.field.starts_with("/transports/")) {
                QCOMPARE(f.observations, 0);
                QCOMPARE(f.after, f.before);
                QVERIFY(f.note.find("not identifiable") != std::string::npos);
            }
        QVERIFY(result->cluster.transports.empty());
    }

    void twoRunsRecoverTheFiguresWithinTheirUncertainties()
    {
        // Two plans of different shapes, their times off the model's by up to ±3 %: each
        // figure comes back within three standard uncertainties, and says which runs gave it.
        const std::vector<double> noise{0.03, -0.02, 0.01, -0.03, 0.02, 0.0, -0.01};
        const Workload workload = trainWorkload(8, 512);
        const std::vector<CalibrationRun> runs{
            {"a.json", twoByTwo(), smallModel(), workload,
             measuredOn(truthBox(), twoByTwo(), workload, noise)},
            {"b.json", threeStages(), smallModel(), workload,
             measuredOn(truthBox(), threeStages(), workload, noise)}};
        const auto result = calibrate(oneBox(), testCatalog(), runs);
        QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
        const std::pair<const char *, double> truth[] = {{"/gpu_types/Fast/achieved_fraction", 0.3},
                                                         {"/transports/pcie/efficiency", 0.4},
                                                         {"/transports/pcie/latency_factor", 2.5}};
        for (const auto &[field, value] : truth) {
            const FittedFigure &f = figureOf(*result, field);
            qInfo("%s: %.4g ± %.2g (truth %.4g)", field, f.after, f.standardError, value);
            QCOMPARE(f.verdict, FigureVerdict::Fitted);
            QVERIFY(f.standardError > 0);
            QVERIFY2(std::abs(f.after - value) <= 3 * f.standardError, field);
            QVERIFY2(f.standardError <= 0.15 * value, field);
        }
        QCOMPARE(figureOf(*result, "/gpu_types/Fast/achieved_fraction").runs,
                 (std::vector<std::string>{"a.json", "b.json"}));
        // The calibrated cluster keeps the uncertainties, and the residuals per phase and what
        // it ran on (its origin's), and writes them.
        const CalibrationRecord &record = result->cluster.calibration;
        QCOMPARE(record.figures.size(), size_t(3));
        for (const FigureUncertainty &u : record.figures)
            QCOMPARE(u.standardUncertainty, figureOf(*result, u.field).standardError);
        const std::vector<CalibrationResidual> &residuals = result->cluster.origin.residuals;
        const auto residual = [&](const char *phase, std::optional<LinkKind> link) {
            return std::find_if(residuals.begin(), residuals.end(),
                                [&](const CalibrationResidual &r) {
                                    return r.phase == phase && r.linkKind == link;
                                });
        };
        QVERIFY(residual("compute", std::nullopt) != residuals.end());
        const auto pp = residual("pp_comm", LinkKind::Pcie);
        QVERIFY(pp != residuals.end());
        QVERIFY(pp->count >= 2);
        QVERIFY(pp->rmsLogError > 0 && pp->rmsLogError < 0.05);
        const std::string written = writeCluster(result->cluster);
        QVERIFY2(written.find("\"standard_uncertainty\"") != std::string::npos, written.c_str());
        auto read = parseCluster(written, "calibrated.json");
        QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
        QCOMPARE(read->calibration, record);
        QCOMPARE(read->origin.residuals, residuals);
    }

    void aCollinearPairIsNotIdentifiable()
    {
        // Only one hop of one size is timed: the link's efficiency and latency factor move it
        // alike, so neither can be told from the other; both stay, the compute figure moves.
        const Workload workload = trainWorkload(8, 512);
        Plan plan;
        plan.pipelines = {pipeline(1, 4, {stage({0}, 1, 1, 0, 4), stage({1}, 1, 1, 4, 8)})};
        const std::vector<CalibrationRun> runs{
            {"one.json", plan, smallModel(), workload, measuredOn(truthBox(), plan, workload)}};
        const auto result = calibrate(oneBox(), testCatalog(), runs);
        QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
        for (const char *field :
             {"/transports/pcie/efficiency", "/transports/pcie/latency_factor"}) {
            const FittedFigure &f = figureOf(*result, field);
            QVERIFY2(f.note.find("not identifiable") != std::string::npos, f.note.c_str());
            QCOMPARE(f.verdict, FigureVerdict::NotIdentifiable);
            QCOMPARE(f.after, f.before);
            QVERIFY(f.observations > 0);
        }
        QVERIFY(result->cluster.transports.empty());
        const FittedFigure &compute = figureOf(*result, "/gpu_types/Fast/achieved_fraction");
        QCOMPARE(compute.verdict, FigureVerdict::Fitted);
        QVERIFY(std::abs(compute.after - 0.3) < 1e-2);
    }

    void aFigureAtItsBoundIsRefusedUnlessAccepted()
    {
        // The runs' communication is four times faster than efficiency 10 (the range's top)
        // explains: the fit ends at the bound, and the efficiency is kept as it was.
        const Workload workload = trainWorkload(8, 512);
        Measurement fast = measuredOn(truthBox(10), twoByTwo(), workload);
        for (MeasuredStage &s : fast.stages)
            for (const Phase phase : {Phase::TpComm, Phase::PpComm, Phase::DpComm})
                s.breakdown.*phaseField(phase) /= 4;
        const std::vector<CalibrationRun> runs{
            {"fast.json", twoByTwo(), smallModel(), workload, fast}};
        const auto refused = calibrate(oneBox(), testCatalog(), runs);
        QVERIFY2(refused.ok(), refused.ok() ? "" : refused.error().message.c_str());
        const FittedFigure &kept = figureOf(*refused, "/transports/pcie/efficiency");
        qInfo("%s", kept.note.c_str());
        QCOMPARE(kept.verdict, FigureVerdict::AtBound);
        QCOMPARE(kept.after, kept.before);
        QCOMPARE(kept.fittedValue, 10.0);
        QVERIFY(kept.note.find("REFUSED") != std::string::npos);
        for (const TransportFigures &t : refused->cluster.transports)
            QCOMPARE(t.efficiency, kept.before);

        const auto accepted = calibrate(oneBox(), testCatalog(), runs, {.acceptAtBound = true});
        QVERIFY(accepted.ok());
        const FittedFigure &taken = figureOf(*accepted, "/transports/pcie/efficiency");
        QCOMPARE(taken.verdict, FigureVerdict::AcceptedAtBound);
        QCOMPARE(taken.after, 10.0);
    }

    void aCpuRunOfAGpuPlanTouchesNoGpuType()
    {
        // CPU ranks rehearsed the plan of a GPU cluster: nothing of the cluster ran, so
        // nothing of it changes, and each figure says why.
        const Workload workload = trainWorkload(8, 512);
        Measurement rehearsal = measuredOn(truthBox(), twoByTwo(), workload);
        rehearsal.run.backend = BackendKind::Gloo;
        const std::vector<CalibrationRun> runs{
            {"cpu.json", twoByTwo(), smallModel(), workload, rehearsal}};
        const auto result = calibrate(oneBox(), testCatalog(), runs);
        QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
        QCOMPARE(result->figures.size(), size_t(3));
        for (const FittedFigure &f : result->figures) {
            QCOMPARE(f.verdict, FigureVerdict::DidNotRun);
            QCOMPARE(f.after, f.before);
        }
        QCOMPARE(result->cluster, oneBox());
    }

    void refusesRunsWithNothingToFit()
    {
        QVERIFY(!calibrate(oneBox(), testCatalog(), {}).ok());
        const Workload workload = trainWorkload(8, 512);
        Measurement empty = measuredOn(oneBox(), twoByTwo(), workload);
        for (MeasuredStage &s : empty.stages)
            s.breakdown = {};
        const std::vector<CalibrationRun> runs{
            {"zero.json", twoByTwo(), smallModel(), workload, empty}};
        const auto result = calibrate(oneBox(), testCatalog(), runs);
        QVERIFY(!result.ok());
        QVERIFY2(result.error().message.find("zero.json") != std::string::npos,
                 result.error().message.c_str());
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestCalibration)
#include "tst_calibration.moc"
