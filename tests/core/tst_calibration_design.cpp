// The calibration job (docs/calibration.md, "Designing the runs"): its runs, fitted together,
// identify every figure calibration fits; bad input is refused.
#include "core/calibrate/calibration.h"
#include "core/calibrate/calibration_design.h"
#include "core/cost/cost_model.h"
#include "core/model/transport_figures.h"
#include "cost_test_fixtures.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <cmath>

using namespace hetplan;
using namespace hetplan::testing;

namespace {

// Three machines of one GPU each: A and B Fast, C Slow; A–B at 1 GB/s, C at 0.2 GB/s to both.
Cluster threeHosts()
{
    Cluster c;
    c.name = "three-hosts";
    c.machines = {machine("A", "Fast", 1, 100, 1), machine("B", "Fast", 1, 100, 1),
                  machine("C", "Slow", 1, 100, 1)};
    c.links = {{"A", "B", LinkKind::Ethernet, 1.0, 50},
               {"A", "C", LinkKind::Ethernet, 0.2, 50},
               {"B", "C", LinkKind::Ethernet, 0.2, 50}};
    return c;
}

// The figures the runs are made with.
Cluster truthOf(const Cluster &base, double latencyFactor = 3.0, double ceilingGBps = 0.5,
                double loss = 0.3)
{
    Cluster truth = base;
    GpuType fast = *testCatalog().find("Fast");
    GpuType slow = *testCatalog().find("Slow");
    fast.achievedFraction = 0.3;
    slow.achievedFraction = 0.45;
    truth.gpuTypes = {fast, slow};
    // The default's per-hop latency kept: the fit scales the link's and its latency together.
    const TransportFigures tcp = transportFigures(base, LinkKind::Ethernet);
    truth.transports
        = {{LinkKind::Ethernet, 0.6, tcp.latencyUs, latencyFactor, loss, ceilingGBps, ""}};
    return truth;
}

std::vector<DesignedRun> designFor(const Cluster &cluster, const Workload &workload)
{
    const Problem problem = makeProblem(cluster, smallModel(), workload);
    auto design = designCalibration(problem.topology, problem.model, problem.workload);
    if (!design)
        qFatal("design: %s", design.error().message.c_str());
    return std::move(design).value();
}

} // namespace

class TestCalibrationDesign : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void theDesignsRunsIdentifyEveryFigure_data()
    {
        QTest::addColumn<double>("latencyFactor");
        QTest::addColumn<double>("ceilingGBps");
        QTest::addColumn<double>("loss");
        QTest::newRow("latency factor 3") << 3.0 << 0.5 << 0.3;
        // Hops of a fixed few milliseconds, as on a busy emulated host: latency-bound runs.
        QTest::newRow("latency factor 100") << 100.0 << 0.5 << 0.3;
        // No host-side ceiling and no loss over more machines: both found to be none.
        QTest::newRow("no ceiling, no loss") << 3.0 << 0.0 << 0.0;
    }

    void theDesignsRunsIdentifyEveryFigure()
    {
        QFETCH(double, latencyFactor);
        QFETCH(double, ceilingGBps);
        QFETCH(double, loss);
        const Workload workload = trainWorkload(8, 512);
        const std::vector<DesignedRun> design = designFor(threeHosts(), workload);
        // Two sizes per GPU type; the fast and the slow Ethernet pair, each as a hop and an
        // all-reduce; an all-reduce over all three machines.
        std::vector<std::string> names;
        for (const DesignedRun &run : design)
            names.push_back(run.name);
        const std::vector<std::string> expected{
            "gpu-Fast-mb1",        "gpu-Fast-mb2",        "gpu-Slow-mb1",
            "gpu-Slow-mb2",        "pp-ethernet-A-0-B-0", "dp-ethernet-A-0-B-0",
            "pp-ethernet-A-0-C-0", "dp-ethernet-A-0-C-0", "dp-ethernet-ring"};
        QCOMPARE(names, expected);

        const Problem truth = makeProblem(truthOf(threeHosts(), latencyFactor, ceilingGBps, loss),
                                          smallModel(), workload);
        std::vector<CalibrationRun> runs;
        for (const DesignedRun &run : design) {
            const Evaluation e = CostModel(CostModelKind::HetPlan).evaluate(truth, run.plan);
            QVERIFY2(e.valid, run.name.c_str());
            int sequences = 0;
            for (const Pipeline &p : run.plan.pipelines)
                sequences += p.microBatch * p.microBatches;
            QCOMPARE(sequences, workload.train.globalBatch);
            runs.push_back({run.name, run.plan, smallModel(), run.plan.workload,
                            measuredAsPredicted(run.plan, e)});
        }
        const auto result = calibrate(threeHosts(), testCatalog(), runs);
        QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
        const std::pair<const char *, double> truthFigures[]
            = {{"/gpu_types/Fast/achieved_fraction", 0.3},
               {"/gpu_types/Slow/achieved_fraction", 0.45},
               {"/transports/ethernet/efficiency", 0.6},
               {"/transports/ethernet/latency_factor", latencyFactor},
               {"/transports/ethernet/ceiling_GBps", ceilingGBps},
               {"/transports/ethernet/loss_per_doubling", loss}};
        QCOMPARE(result->figures.size(), std::size(truthFigures));
        for (const auto &[field, value] : truthFigures) {
            const auto f = std::find_if(result->figures.begin(), result->figures.end(),
                                        [&](const FittedFigure &x) { return x.field == field; });
            QVERIFY2(f != result->figures.end(), field);
            qInfo("%s: %.4g (truth %.4g), %s", field, f->after, value, f->note.c_str());
            QCOMPARE(f->verdict, FigureVerdict::Fitted);
            QVERIFY2(value == 0 ? f->after == 0 : std::abs(f->after / value - 1) < 1e-3, field);
            // Reports show a ceiling found to be none as "none", not as a rate of 0.
            QCOMPARE(f->meansNone(f->after), value == 0 && f->field.ends_with("ceiling_GBps"));
        }
    }

    void oneRunOfThePlanAloneDoesNotIdentifyThem()
    {
        // The contrast: the hop run alone cannot tell the link's efficiency from its latency.
        const Workload workload = trainWorkload(8, 512);
        const std::vector<DesignedRun> design = designFor(threeHosts(), workload);
        const Problem truth = makeProblem(truthOf(threeHosts()), smallModel(), workload);
        const DesignedRun &hop = design[4];
        const Evaluation e = CostModel(CostModelKind::HetPlan).evaluate(truth, hop.plan);
        const std::vector<CalibrationRun> runs{
            {hop.name, hop.plan, smallModel(), workload, measuredAsPredicted(hop.plan, e)}};
        const auto result = calibrate(threeHosts(), testCatalog(), runs);
        QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
        int unidentified = 0;
        for (const FittedFigure &f : result->figures)
            unidentified += f.verdict == FigureVerdict::NotIdentifiable;
        QVERIFY(unidentified >= 1);
    }

    void aCeilingTheRunsCannotSeparateIsKeptAndTheOthersFitted()
    {
        // The two hops alone: two pairs of different bandwidths, but one figure per message
        // size each, too few for efficiency, latency factor and ceiling together.
        const Workload workload = trainWorkload(8, 512);
        const Problem truth = makeProblem(truthOf(threeHosts()), smallModel(), workload);
        std::vector<CalibrationRun> runs;
        for (const DesignedRun &run : designFor(threeHosts(), workload)) {
            if (!run.name.starts_with("pp-") && !run.name.starts_with("gpu-"))
                continue;
            const Evaluation e = CostModel(CostModelKind::HetPlan).evaluate(truth, run.plan);
            runs.push_back({run.name, run.plan, smallModel(), run.plan.workload,
                            measuredAsPredicted(run.plan, e)});
        }
        const auto result = calibrate(threeHosts(), testCatalog(), runs);
        QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
        const auto figure = [&](const std::string &field) {
            const auto f = std::find_if(result->figures.begin(), result->figures.end(),
                                        [&](const FittedFigure &x) { return x.field == field; });
            if (f == result->figures.end())
                qFatal("no figure %s", field.c_str());
            return *f;
        };
        const FittedFigure ceiling = figure("/transports/ethernet/ceiling_GBps");
        QCOMPARE(ceiling.verdict, FigureVerdict::NotIdentifiable);
        QVERIFY2(ceiling.note.find("efficiency") != std::string::npos, ceiling.note.c_str());
        QCOMPARE(ceiling.after, 0.0); // kept: none, as the cluster had it
        // Judged again without it, the hops of two bandwidths still fit the other two.
        QCOMPARE(figure("/transports/ethernet/efficiency").verdict, FigureVerdict::Fitted);
        QCOMPARE(figure("/transports/ethernet/latency_factor").verdict, FigureVerdict::Fitted);
        // No run's ring spans three machines: the loss is no parameter at all.
        QVERIFY(
            std::none_of(result->figures.begin(), result->figures.end(), [](const FittedFigure &f) {
                return f.field.ends_with("loss_per_doubling");
            }));
    }

    void alikePairsOfAKindGiveOneRunEach()
    {
        Cluster even = threeHosts();
        even.links[1].bandwidthGBps = 1.0;
        even.links[2].bandwidthGBps = 1.0;
        int linkRuns = 0;
        for (const DesignedRun &run : designFor(even, trainWorkload(8, 512)))
            linkRuns += run.name.starts_with("pp-") || run.name.starts_with("dp-");
        // One pair as a hop and as an all-reduce, and the ring over all three.
        QCOMPARE(linkRuns, 3);
    }

    void badInputIsRefused_data()
    {
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("globalBatch");
        QTest::addColumn<bool>("inference");
        QTest::addColumn<QByteArray>("says");
        QTest::newRow("one layer") << 1 << 8 << false << QByteArray("fewer than two layers");
        QTest::newRow("one sequence") << 8 << 1 << false << QByteArray("hold at least two");
        QTest::newRow("not a multiple")
            << 8 << 7 << false << QByteArray("multiple of the micro-batch");
        QTest::newRow("inference") << 8 << 8 << true << QByteArray("training workloads");
    }

    void badInputIsRefused()
    {
        QFETCH(int, layers);
        QFETCH(int, globalBatch);
        QFETCH(bool, inference);
        QFETCH(QByteArray, says);
        ModelSpec model = smallModel();
        model.layers = layers;
        Workload workload = trainWorkload(globalBatch, 512);
        workload.train.microBatchSizes = {globalBatch == 7 ? 2 : 1};
        if (inference)
            workload.mode = Mode::Infer;
        const Problem problem = makeProblem(threeHosts(), smallModel(), workload);
        const auto design = designCalibration(problem.topology, model, workload);
        QVERIFY(!design.ok());
        QCOMPARE(design.error().kind, ErrorKind::BadInput);
        QVERIFY2(design.error().message.find(says.toStdString()) != std::string::npos,
                 design.error().message.c_str());
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestCalibrationDesign)
#include "tst_calibration_design.moc"
