// Prediction intervals (docs/cost-models.md, "Prediction intervals"): wide on catalog figures,
// narrower on measured ones, from the residuals on calibrated ones; what extrapolates is named;
// compare ranks by a pessimistic quantile.
#include "core/calibrate/calibration.h"
#include "core/cost/cost_model.h"
#include "core/cost/prediction_interval.h"
#include "core/cost/rank_phases.h"
#include "core/io/formats.h"
#include "cost_test_fixtures.h"
#include "tests/core/cli_runner.h"
#include "tests/test_registry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace hetplan;
using namespace hetplan::testing;

namespace {

// Two stages, 4 micro-batches: the bottleneck on machine B's Slow GPUs at tp 2 (PCIe) with 6
// layers, then a hop over Ethernet to one of machine A's Fast GPUs with 2.
Plan acrossMachines()
{
    Plan plan;
    plan.pipelines = {pipeline(1, 4, {stage({3, 4}, 2, 1, 0, 6), stage({0}, 1, 1, 6, 8)})};
    return plan;
}

Evaluation evaluateOn(const Cluster &cluster, const Plan &plan)
{
    const Problem problem = makeProblem(cluster, smallModel(), trainWorkload(8, 512));
    return CostModel(CostModelKind::HetPlan).evaluate(problem, plan);
}

// The relative half-width of a phase's interval: hi = t (1 + h).
double upperWidth(const TimeInterval &interval, double timeS)
{
    return interval.hiS / timeS - 1;
}

// The cluster with every figure the plan uses recorded as measured by `by`.
Cluster measuredBy(MeasuredBy by)
{
    Cluster c = twoMachineCluster();
    for (const char *field :
         {"/gpu_types/Fast/tflops", "/gpu_types/Slow/tflops", "/machines/A/intra/bandwidth_GBps",
          "/machines/B/intra/bandwidth_GBps", "/links/A/B/bandwidth_GBps"})
        c.origin.figures.push_back({field, "measured.json", "median of 5", by});
    return c;
}

// One machine of 6 Fast GPUs on PCIe (tst_calibration's), and a run of two pipelines on it
// whose compute took `computeFactor` times the model's.
Cluster oneBox()
{
    Cluster c;
    c.name = "box";
    c.machines = {machine("A", "Fast", 6, 20, 5)};
    return c;
}

CalibrationRun noisyRun(const Plan &plan, const Workload &workload)
{
    const Problem problem = makeProblem(oneBox(), smallModel(), workload);
    const Evaluation e = CostModel(CostModelKind::HetPlan).evaluate(problem, plan);
    // The same stage measured 10 % slow in one pipeline and 10 % fast in the other: no fit
    // removes that, so the residual of compute on Fast is ln(1.1)-ish.
    const Measurement m = measuredAsPredicted(plan, e, [](const RankPhases &r, Breakdown &b) {
        b.computeS *= r.pipeline == 0 ? 1.1 : 1 / 1.1;
    });
    return {"run.json", plan, smallModel(), workload, m};
}

} // namespace

class TestPredictionInterval : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void catalogFiguresGiveTheWideDefaultAndExtrapolate()
    {
        const Evaluation e = evaluateOn(twoMachineCluster(), acrossMachines());
        QVERIFY(e.interval);
        const PredictionInterval &i = *e.interval;
        QVERIFY(i.iteration.loS < e.iterationS && e.iterationS < i.iteration.hiS);
        // Catalog compute: a factor of 2 either way.
        QVERIFY(near(upperWidth(i.computeS, e.breakdown.computeS), 1.0));
        QVERIFY(near(i.computeS.loS, e.breakdown.computeS / 2));
        // Catalog Ethernet hop: 1.0; catalog PCIe TP: 0.5.
        QVERIFY(near(upperWidth(i.ppCommS, e.breakdown.ppCommS), 1.0));
        QVERIFY(near(upperWidth(i.tpCommS, e.breakdown.tpCommS), 0.5));
        // The pair override B:0–B:2 is not on the plan's path; everything used is catalog.
        QCOMPARE(i.extrapolatedGpuTypes, (std::vector<std::string>{"Fast", "Slow"}));
        QCOMPARE(i.extrapolatedLinks, (std::vector<std::string>{"ethernet", "pcie"}));
    }

    void measuredFiguresNarrowItAndCalibrationMore_data()
    {
        QTest::addColumn<int>("by");
        QTest::addColumn<double>("computeWidth");
        QTest::addColumn<double>("hopWidth");
        QTest::newRow("imported") << int(MeasuredBy::Unspecified) << 0.4 << 0.4;
        QTest::newRow("probe") << int(MeasuredBy::Probe) << 0.5 << 0.35;
        QTest::newRow("nccl-tests") << int(MeasuredBy::NcclTests) << 0.4 << 0.2;
        QTest::newRow("calibrated, no residuals") << int(MeasuredBy::Calibration) << 0.15 << 0.15;
    }

    void measuredFiguresNarrowItAndCalibrationMore()
    {
        QFETCH(int, by);
        QFETCH(double, computeWidth);
        QFETCH(double, hopWidth);
        const Evaluation catalog = evaluateOn(twoMachineCluster(), acrossMachines());
        const Evaluation e = evaluateOn(measuredBy(MeasuredBy(by)), acrossMachines());
        QVERIFY(e.interval && catalog.interval);
        QVERIFY(near(upperWidth(e.interval->computeS, e.breakdown.computeS), computeWidth));
        QVERIFY(near(upperWidth(e.interval->ppCommS, e.breakdown.ppCommS), hopWidth));
        const double widthS = e.interval->iteration.hiS - e.interval->iteration.loS;
        const double catalogWidthS
            = catalog.interval->iteration.hiS - catalog.interval->iteration.loS;
        QVERIFY2(widthS < 0.8 * catalogWidthS,
                 qPrintable(QStringLiteral("%1 s vs %2 s").arg(widthS).arg(catalogWidthS)));
        QVERIFY(!e.interval->extrapolates());
    }

    void aCalibrationResidualGivesTheWidth()
    {
        Cluster c = measuredBy(MeasuredBy::Calibration);
        c.origin.residuals = {{"compute", "Slow", std::nullopt, 0.05, 6},
                              {"pp_comm", "", LinkKind::Ethernet, 0.3, 2}};
        const Evaluation e = evaluateOn(c, acrossMachines());
        QVERIFY(e.interval);
        const double heldOut = std::log(1.10) / kInterval90Z;
        const double compute = std::exp(kInterval90Z * std::hypot(0.05, heldOut)) - 1;
        const double hop = std::exp(kInterval90Z * std::hypot(0.3, heldOut)) - 1;
        QVERIFY(near(upperWidth(e.interval->computeS, e.breakdown.computeS), compute));
        QVERIFY(near(upperWidth(e.interval->ppCommS, e.breakdown.ppCommS), hop));
        // TP on PCIe has no residual: the calibrated default.
        QVERIFY(near(upperWidth(e.interval->tpCommS, e.breakdown.tpCommS), 0.15));
    }

    void phasesOnOneFigureAddAndFiguresAddInQuadrature()
    {
        const Evaluation e = evaluateOn(twoMachineCluster(), acrossMachines());
        const PredictionInterval &i = *e.interval;
        const Breakdown &b = e.breakdown;
        // Compute and bubble rest on Slow; TP on PCIe; the hop on Ethernet; no DP.
        const double fastUpS = (i.computeS.hiS - b.computeS) + (i.bubbleS.hiS - b.bubbleS);
        const double upS = std::sqrt(fastUpS * fastUpS + std::pow(i.tpCommS.hiS - b.tpCommS, 2)
                                     + std::pow(i.ppCommS.hiS - b.ppCommS, 2));
        QVERIFY(near(i.iteration.hiS - e.iterationS, upS));
        QCOMPARE(b.dpCommS, 0.0);
    }

    void calibrationStoresItsResidualsAndTheClusterKeepsThem()
    {
        const Workload workload = trainWorkload(8, 512);
        Plan plan;
        plan.pipelines = {pipeline(1, 4, {stage({0, 1}, 2, 1, 0, 4), stage({2}, 1, 1, 4, 8)}),
                          pipeline(1, 4, {stage({3, 4}, 2, 1, 0, 4), stage({5}, 1, 1, 4, 8)})};
        const std::vector<CalibrationRun> runs{noisyRun(plan, workload)};
        const auto result = calibrate(oneBox(), testCatalog(), runs);
        QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
        const ClusterOrigin &origin = result->cluster.origin;
        const auto compute = std::find_if(origin.residuals.begin(), origin.residuals.end(),
                                          [](const CalibrationResidual &r) {
                                              return r.phase == "compute" && r.gpuType == "Fast";
                                          });
        QVERIFY(compute != origin.residuals.end());
        QCOMPARE(compute->count, 4);
        // Half the stages 10 % over, half 10 % under: the fit sits between, each off by ln 1.1.
        QVERIFY2(std::abs(compute->rmsLogError - std::log(1.1)) < 0.01,
                 qPrintable(QString::number(compute->rmsLogError)));
        for (const MeasuredFigure &f : origin.figures)
            QCOMPARE(f.by, MeasuredBy::Calibration);

        // The cluster file keeps both; a file without them reads as none.
        const std::string text = writeCluster(result->cluster);
        const auto back = parseCluster(text, "calibrated.json");
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
        QCOMPARE(back->origin, origin);
        const auto old = parseCluster(writeCluster(oneBox()), "old.json");
        QVERIFY(old.ok() && old->origin.residuals.empty());

        // Predictions on the calibrated cluster take the residual's width.
        const Problem problem = makeProblem(result->cluster, smallModel(), workload);
        const Evaluation e = CostModel(CostModelKind::HetPlan).evaluate(problem, plan);
        QVERIFY(near(upperWidth(e.interval->computeS, e.breakdown.computeS),
                     residualHalfWidth(*compute)));
    }

    void aResidualOfAnUnknownPhaseIsRefused()
    {
        Cluster c = oneBox();
        c.origin.residuals = {{"compute", "Fast", std::nullopt, 0.1, 3}};
        std::string text = writeCluster(c);
        const std::string from = "\"phase\": \"compute\"";
        QVERIFY(text.find(from) != std::string::npos);
        text.replace(text.find(from), from.size(), "\"phase\": \"iteration\"");
        const auto read = parseCluster(text, "bad.json");
        QVERIFY(!read.ok());
        QVERIFY2(read.error().message.find("phase") != std::string::npos,
                 read.error().message.c_str());
    }

    void p90RanksTheNarrowerPlanFirstWhenMeansAndWidthsCross()
    {
        // A is faster on the mean but wide (catalog figures); B slower but measured.
        Evaluation a;
        a.iterationS = 10;
        a.interval = PredictionInterval{};
        a.interval->iteration = {5, 20};
        Evaluation b;
        b.iterationS = 11;
        b.interval = PredictionInterval{};
        b.interval->iteration = {10, 12};
        QVERIFY(rankingS(a, RankBy::Mean) < rankingS(b, RankBy::Mean));
        QVERIFY(rankingS(a, RankBy::P90) > rankingS(b, RankBy::P90));
        QVERIFY(near(rankingS(a, RankBy::P90), 10 + 10 * kPercentile90Z / kInterval90Z));

        // Priced by the cost model: the plan on measured figures keeps a smaller margin above
        // its prediction than on catalog ones.
        const Evaluation wide = evaluateOn(twoMachineCluster(), acrossMachines());
        const Evaluation narrow = evaluateOn(measuredBy(MeasuredBy::NcclTests), acrossMachines());
        QVERIFY(rankingS(narrow, RankBy::P90) / narrow.iterationS
                < rankingS(wide, RankBy::P90) / wide.iterationS);
        QCOMPARE(rankingS(wide, RankBy::Mean), wide.iterationS);
    }

    void theCliPrintsTheIntervalAndRanksByP90()
    {
        using hetplan::test::cli;
        const auto run = cli({"compare", "--cluster", "case-study", "--model", "llama2-13b",
                              "--planners", "metis,holmes", "--rank-by", "p90", "--json"});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject report = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(report.value(QStringLiteral("rank_by")).toString(), QStringLiteral("p90"));
        const QJsonArray results = report.value(QStringLiteral("results")).toArray();
        QCOMPARE(results.size(), 2);
        double previous = 0;
        for (const QJsonValue &result : results) {
            const QJsonObject r = result.toObject();
            const double p90 = r.value(QStringLiteral("p90_s")).toDouble();
            const QJsonObject interval = r.value(QStringLiteral("estimate"))
                                             .toObject()
                                             .value(QStringLiteral("interval"))
                                             .toObject();
            const double hi = interval.value(QStringLiteral("iteration_s"))
                                  .toObject()
                                  .value(QStringLiteral("hi"))
                                  .toDouble();
            QVERIFY(p90 >= previous);
            QVERIFY(p90 < hi);
            previous = p90;
        }

        const auto bad = cli(
            {"compare", "--cluster", "case-study", "--model", "llama2-13b", "--rank-by", "p99"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("mean, p90"), bad.err.constData());

        const auto text = cli(
            {"plan", "--cluster", "case-study", "--model", "llama2-13b", "--planner", "holmes"});
        QVERIFY2(text.exitCode == 0, text.err.constData());
        QVERIFY2(text.out.contains("(90 %"), text.out.constData());
        // The bundled case study is drawn from catalog figures: its GPU types extrapolate.
        QVERIFY2(text.out.contains("Extrapolates: GPU type"), text.out.constData());
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestPredictionInterval)
#include "tst_prediction_interval.moc"
