// Compute from a measured layer table (docs/cost-models.md, "Measured layers"): the table is
// looked up by what it was measured at, interpolated in the micro-batch, priced as measured
// (never derated, whatever the type's GEMM figures), scaled by calibration's compute scale
// (both ways: a run may be faster than its table) or, in a cluster calibrated before compute
// scales, by the achieved fraction, and a compute resting on it is the probe's figure in the
// prediction interval.
#include "core/calibrate/calibration.h"
#include "core/cost/cost_model.h"
#include "core/cost/layer_table.h"
#include "core/cost/prediction_interval.h"
#include "core/import/import.h"
#include "core/io/formats.h"
#include "cost_test_fixtures.h"
#include "import_fixtures.h"
#include "tests/test_registry.h"

#include <QtTest>

using namespace hetplan;
using namespace hetplan::testing;

namespace {

constexpr int kSeqLen = 512;

// One layer of smallModel() on a TP 2 shard at micro-batch 1, 2 and 4.
MeasuredLayerTable table(int tp = 2)
{
    MeasuredLayerTable t;
    t.model = "small";
    t.modelShape = modelShapeKey(smallModel());
    t.seqLen = kSeqLen;
    t.tp = tp;
    t.points = {{1, 1.0, 2.0}, {2, 1.5, 3.0}, {4, 2.5, 5.0}};
    t.optimizerSPerParam = 1e-9;
    t.embeddingForwardSPerToken = 1e-6;
    t.embeddingBackwardSPerToken = 2e-6;
    t.headForwardSPerToken = 3e-6;
    t.headBackwardSPerToken = 4e-6;
    t.achievedFraction = 0.5; // the catalog's Slow, as import keeps it
    return t;
}

// twoMachineCluster() with machine B's Slow type carrying `layers`.
Cluster withTable(std::vector<MeasuredLayerTable> layers = {table()})
{
    Cluster c = twoMachineCluster();
    GpuType slow = *testCatalog().find("Slow");
    slow.measuredLayers = std::move(layers);
    c.gpuTypes.push_back(slow);
    return c;
}

Workload selective()
{
    Workload w = trainWorkload(8, kSeqLen);
    w.train.recompute = Recompute::Selective;
    return w;
}

// Stage 0 of 2 on B:0 and B:1 at TP 2 with 6 layers, micro-batch 2 of 4.
StageTiming firstStage(const Cluster &cluster)
{
    const Problem problem = makeProblem(cluster, smallModel(), selective());
    const Stage s = stage({3, 4}, 2, 1, 0, 6);
    return CostModel(CostModelKind::HetPlan).estimateStage(problem, queryOf(s, 2, 0, 2, 4)).timing;
}

// A probed CPU rank's layer whose times are `factor` × table()'s.
LayerFigure probedLayer(double factor)
{
    const auto figure = [](double s) { return Spread{5, s, s, s}; };
    LayerFigure l;
    l.method = "runtime-cpu-layer";
    l.model = "small";
    l.modelShape = modelShapeKey(smallModel());
    l.seqLen = kSeqLen;
    l.tp = 2;
    for (const LayerTimes &p : table().points)
        l.points.push_back(
            {p.microBatch, figure(factor * p.forwardS), figure(factor * p.backwardS)});
    l.optimizerSPerParam = figure(factor * 1e-9);
    l.embeddingForwardSPerToken = figure(factor * 1e-6);
    l.embeddingBackwardSPerToken = figure(factor * 2e-6);
    l.headForwardSPerToken = figure(factor * 3e-6);
    l.headBackwardSPerToken = figure(factor * 4e-6);
    return l;
}

} // namespace

class TestLayerTable : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void interpolatesAndExtrapolatesInTheMicroBatch_data()
    {
        QTest::addColumn<double>("microBatch");
        QTest::addColumn<double>("forwardS");
        QTest::addColumn<double>("backwardS");
        QTest::newRow("a measured point") << 2.0 << 1.5 << 3.0;
        QTest::newRow("between two points") << 3.0 << 2.0 << 4.0;
        QTest::newRow("beyond the largest") << 8.0 << 4.5 << 9.0;
        QTest::newRow("an uneven DP share below the smallest") << 0.5 << 0.75 << 1.5;
        QTest::newRow("far below: the line through the two smallest") << 0.1 << 0.55 << 1.1;
    }

    void interpolatesAndExtrapolatesInTheMicroBatch()
    {
        QFETCH(double, microBatch);
        QFETCH(double, forwardS);
        QFETCH(double, backwardS);
        const LayerSeconds s = layerSecondsAt(table(), microBatch);
        QVERIFY2(near(s.forwardS, forwardS), qPrintable(QString::number(s.forwardS)));
        QVERIFY2(near(s.backwardS, backwardS), qPrintable(QString::number(s.backwardS)));
    }

    void aSequenceCostsNoLessThanAtTheSmallestMicroBatch()
    {
        // Time growing faster than the micro-batch: the line through 1 and 2 falls below 0 at
        // 0.25 sequences, the floor keeps the smallest point's time per sequence.
        MeasuredLayerTable steep = table();
        steep.points = {{1, 1.0, 2.0}, {2, 3.0, 6.0}};
        const LayerSeconds s = layerSecondsAt(steep, 0.25);
        QVERIFY(near(s.forwardS, 0.25));
        QVERIFY(near(s.backwardS, 0.5));
    }

    void oneMeasuredPointIsProportional()
    {
        MeasuredLayerTable one = table();
        one.points = {{2, 1.5, 3.0}};
        const LayerSeconds s = layerSecondsAt(one, 3);
        QVERIFY(near(s.forwardS, 2.25));
        QVERIFY(near(s.backwardS, 4.5));
    }

    void matchesWhatItWasMeasuredAt()
    {
        GpuType type = *testCatalog().find("Slow");
        type.measuredLayers = {table(1), table(2)};
        const ModelSpec model = smallModel();
        QCOMPARE(matchingLayerTable(type, model, kSeqLen, 2), &type.measuredLayers[1]);
        QVERIFY(!matchingLayerTable(type, model, kSeqLen, 4));
        QVERIFY(!matchingLayerTable(type, model, kSeqLen * 2, 2));
        ModelSpec scaled = model; // another shape: a model shrunk by --scale
        scaled.hidden /= 8;
        scaled.ffnHidden /= 8;
        QVERIFY(!matchingLayerTable(type, scaled, kSeqLen, 2));
    }

    void computeIsTheTableNeverDerated()
    {
        const StageTiming t = firstStage(withTable());
        // 6 layers at micro-batch 2, the embedding per token (the first stage), and the
        // optimizer over the GPU's parameters (its TP half of the layers and the whole
        // embedding) spread over the 4 micro-batches.
        const ModelSpec m = smallModel();
        const double tokens = 2.0 * kSeqLen;
        const double params = 6 * m.paramsPerLayer() / 2 + m.embeddingParams();
        const double forwardS = 6 * 1.5 + tokens * 1e-6;
        const double backwardS = 6 * 3.0 + tokens * 2e-6 + params * 1e-9 / 4;
        QVERIFY2(near(t.computeS, forwardS + backwardS), qPrintable(QString::number(t.computeS)));

        // The type's GEMM figures do not enter.
        Cluster faster = withTable();
        faster.gpuTypes.back().tflops *= 10;
        QVERIFY(near(firstStage(faster).computeS, t.computeS));
        // Without a table (or with one of another TP degree) the GEMM model prices it.
        QVERIFY(!near(firstStage(withTable({table(1)})).computeS, t.computeS, 1e-3));
    }

    void calibrationScalesTheTable()
    {
        const double measuredS = firstStage(withTable()).computeS;
        Cluster faster = withTable();
        faster.gpuTypes.back().computeScale = 2;
        QVERIFY(near(firstStage(faster).computeS, measuredS / 2));
        // A cluster calibrated before compute_scale existed moved the achieved fraction.
        Cluster calibrated = withTable();
        calibrated.gpuTypes.back().achievedFraction = 0.25; // half the imported 0.5
        QVERIFY(near(firstStage(calibrated).computeS, 2 * measuredS));
    }

    void calibrateFitsTheTablesScaleBothWays_data()
    {
        QTest::addColumn<double>("truth");
        QTest::newRow("a run twice as slow as its table") << 0.5;
        // The case an achieved fraction (at most 1, as imported) could not reach.
        QTest::newRow("a run twice as fast as its table") << 2.0;
    }

    void calibrateFitsTheTablesScaleBothWays()
    {
        QFETCH(double, truth);
        Plan plan;
        plan.pipelines = {pipeline(2, 4, {stage({3, 4}, 2, 1, 0, 8)})};
        Cluster ran = withTable();
        ran.gpuTypes.back().computeScale = truth;
        const Problem problem = makeProblem(ran, smallModel(), selective());
        const Evaluation e = CostModel(CostModelKind::HetPlan).evaluate(problem, plan);
        const std::vector<CalibrationRun> runs{
            {"run.json", plan, smallModel(), selective(), measuredAsPredicted(plan, e)}};
        const auto result = calibrate(withTable(), testCatalog(), runs);
        QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
        const auto field = [&](std::string_view name) {
            return std::ranges::find_if(result->figures, [&](const FittedFigure &f) {
                return f.field == "/gpu_types/Slow/" + std::string(name);
            });
        };
        const auto figure = field("compute_scale");
        QVERIFY(figure != result->figures.end());
        QCOMPARE(figure->verdict, FigureVerdict::Fitted);
        QVERIFY2(std::abs(figure->after - truth) < 1e-3 * truth,
                 qPrintable(QString::number(figure->after)));
        QVERIFY(!std::isnan(figure->standardError));
        // The table's compute is the compute scale's alone.
        QVERIFY(field("achieved_fraction") == result->figures.end());
        QVERIFY(near(result->cluster.gpuTypes.back().computeScale, truth, 1e-3));
        QCOMPARE(result->cluster.gpuTypes.back().measuredLayers,
                 withTable().gpuTypes.back().measuredLayers);
        // It is written to the cluster file with its origin.
        const auto origin
            = std::ranges::find_if(result->cluster.origin.figures, [](const MeasuredFigure &f) {
                  return f.field == "/gpu_types/Slow/compute_scale";
              });
        QVERIFY(origin != result->cluster.origin.figures.end());
        QCOMPARE(origin->by, MeasuredBy::Calibration);
        auto read = parseCluster(writeCluster(result->cluster), "calibrated.cluster.json");
        QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
        QVERIFY(near(read->gpuTypes.back().computeScale, truth, 1e-3));
    }

    void aComputeOnTheTableIsTheProbesFigure()
    {
        Plan plan;
        plan.pipelines = {pipeline(2, 4, {stage({3, 4}, 2, 1, 0, 8)})};
        const auto widthOf = [&](const Cluster &cluster) {
            const Problem problem = makeProblem(cluster, smallModel(), selective());
            const Evaluation e = CostModel(CostModelKind::HetPlan).evaluate(problem, plan);
            if (!e.interval)
                qFatal("no interval");
            return e.interval->computeS.hiS / e.breakdown.computeS - 1;
        };
        QVERIFY(near(widthOf(withTable({table(1)})), 1.0)); // catalog figures
        QVERIFY(near(widthOf(withTable()), 0.5));           // the probe's
    }

    void importKeepsTheMiddleHostsTableWithItsOrigin()
    {
        std::vector<ProbedHost> hosts;
        for (int r = 0; r < 3; ++r) {
            hosts.push_back(fixtures::cpuRank("box#" + std::to_string(r), r, 0.1));
            hosts.back().cpuLayer = probedLayer(r == 0 ? 3 : r == 1 ? 1 : 2);
        }
        const std::string text = writeProbe(fixtures::probeOf(hosts, {}));
        auto imported = importMeasurements({ImportInput("box.probe.json", text)});
        QVERIFY2(imported.ok(), imported.ok() ? "" : imported.error().message.c_str());
        QCOMPARE(imported->cluster.gpuTypes.size(), std::size_t(1));
        const GpuType &type = imported->cluster.gpuTypes.front();
        QCOMPARE(type.measuredLayers.size(), std::size_t(1));
        MeasuredLayerTable expected = table();
        expected.points = {{1, 2.0, 4.0}, {2, 3.0, 6.0}, {4, 5.0, 10.0}};
        expected.optimizerSPerParam = 2e-9;
        expected.embeddingForwardSPerToken = 2e-6;
        expected.embeddingBackwardSPerToken = 4e-6;
        expected.headForwardSPerToken = 6e-6;
        expected.headBackwardSPerToken = 8e-6;
        expected.achievedFraction = 1; // a CPU type's
        expected.source = "box.probe.json: hosts[2].cpu_layer";
        QCOMPARE(type.measuredLayers.front(), expected);
        const auto origin
            = std::ranges::find_if(imported->cluster.origin.figures, [&](const MeasuredFigure &f) {
                  return f.field == "/gpu_types/" + type.name + "/measured_layers/0";
              });
        QVERIFY(origin != imported->cluster.origin.figures.end());
        QCOMPARE(origin->by, MeasuredBy::Probe);
        QCOMPARE(origin->source, std::string("box.probe.json: hosts[2].cpu_layer"));
        QVERIFY2(origin->how.find("the middle of 3 hosts") != std::string::npos,
                 origin->how.c_str());
    }

    void importMakesAGpusLayerItsTypesTableAsForACpu()
    {
        // Two H100s of one host timed the layer, the second 3× slower: the H100-80G type keeps
        // the one in the middle (the first of two), at the achieved fraction import measured.
        ProbedHost host = fixtures::gpuHost("gpu-box", 0, 2, 500);
        for (std::size_t g = 0; g < host.gpus.size(); ++g) {
            LayerFigure layer = probedLayer(g == 0 ? 1 : 3);
            layer.method = "runtime-cuda-layer";
            host.gpus[g].layer = layer;
        }
        const std::string text = writeProbe(fixtures::probeOf({host}, {}));
        auto imported = importMeasurements({ImportInput("gpu.probe.json", text)});
        QVERIFY2(imported.ok(), imported.ok() ? "" : imported.error().message.c_str());
        const auto type = std::ranges::find_if(
            imported->cluster.gpuTypes, [](const GpuType &t) { return t.name == "H100-80G"; });
        QVERIFY(type != imported->cluster.gpuTypes.end());
        QCOMPARE(type->measuredLayers.size(), std::size_t(1));
        MeasuredLayerTable expected = table();
        expected.achievedFraction = type->achievedFraction;
        QVERIFY(expected.achievedFraction > 0 && expected.achievedFraction < 1);
        expected.source = "gpu.probe.json: hosts[0].gpus[0].layer";
        QCOMPARE(type->measuredLayers.front(), expected);
        QVERIFY(std::ranges::any_of(imported->cluster.origin.figures, [](const MeasuredFigure &f) {
            return f.field == "/gpu_types/H100-80G/measured_layers/0" && f.by == MeasuredBy::Probe;
        }));
        // A stage of that shape on the type rests on the table.
        QVERIFY(matchingLayerTable(*type, smallModel(), kSeqLen, 2));
    }

    void theClusterFileKeepsTheTable()
    {
        const Cluster c = withTable();
        auto read = parseCluster(writeCluster(c), "cluster.json");
        QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
        QCOMPARE(read->gpuTypes.back().measuredLayers, c.gpuTypes.back().measuredLayers);
        QCOMPARE(read->gpuTypes.back().computeScale, 1.0); // absent: as measured
    }

    void theClusterReaderRefusesABadTable_data()
    {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<QString>("expected");
        QTest::newRow("micro-batches out of order") << "\"micro_batch\": 4"
                                                    << "\"micro_batch\": 1"
                                                    << "ascending order";
        QTest::newRow("a zero layer time") << "\"forward_s\": 1.5"
                                           << "\"forward_s\": 0"
                                           << "micro_batches[1].forward_s";
        QTest::newRow("an unknown field") << "\"model_shape\""
                                          << "\"shape\""
                                          << "measured_layers[0]";
        QTest::newRow("a negative optimizer time") << "\"optimizer_s_per_param\": 1e-09"
                                                   << "\"optimizer_s_per_param\": -1"
                                                   << "optimizer_s_per_param";
    }

    void theClusterReaderRefusesABadTable()
    {
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(QString, expected);
        std::string text = writeCluster(withTable());
        const std::size_t at = text.find(from.toStdString());
        QVERIFY2(at != std::string::npos, qPrintable(from));
        text.replace(at, std::size_t(from.size()), to.toStdString());
        auto read = parseCluster(text, "bad.cluster.json");
        QVERIFY(!read.ok());
        const QString message = QString::fromStdString(read.error().message);
        QVERIFY2(message.startsWith(QStringLiteral("bad.cluster.json")), qPrintable(message));
        QVERIFY2(message.contains(expected), qPrintable(message));
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestLayerTable)
#include "tst_layer_table.moc"
