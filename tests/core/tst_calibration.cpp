// Calibration (docs/calibration.md): the least-squares fit, and the cluster figures it
// recovers from runs whose times a known cluster would produce.
#include "core/calibrate/calibration.h"
#include "core/calibrate/least_squares.h"
#include "core/cost/cost_model.h"
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

// What a run of `plan` on `truth` measures, if the hetplan model were exact: every rank's
// predicted phases (core/cost/rank_phases.h) as its one iteration, summarized as a run's are.
Measurement measuredOn(const Cluster &truth, const Plan &plan, const Workload &workload)
{
    const Problem problem = makeProblem(truth, smallModel(), workload);
    const Evaluation e = CostModel(CostModelKind::HetPlan).evaluate(problem, plan);
    Measurement m;
    m.run.backend = BackendKind::Gloo;
    m.loss = {0};
    for (const RankPhases &r : planRankPhases(plan, e)) {
        MeasuredRank rank;
        rank.rank = r.rank;
        rank.pipeline = r.pipeline;
        rank.stage = r.stage;
        rank.tpIndex = r.tpIndex;
        rank.iterations = {{r.wallS, r.breakdown, r.hops}};
        m.ranks.push_back(rank);
    }
    summarizeMeasurement(m);
    return m;
}

// One machine of 6 Fast GPUs on PCIe, so every link the plan uses is one kind.
Cluster oneBox()
{
    Cluster c;
    c.name = "box";
    c.machines = {machine("A", "Fast", 6, 20, 5)};
    return c;
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
        truth.transports = {{LinkKind::Pcie, 0.4, 0.0, 2.5, 0.0, ""}};
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
        const auto result = calibrate(oneBox(), testCatalog(), runs, stop.get_token());
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
