// Measured beside predicted (docs/runtime.md, "Comparing with the prediction", "Phases per
// rank"): every row is keyed by run, stage or rank and phase, reports format the key as a label,
// and the JSON carries the key as fields so no reader has to parse the label.
#include "core/cost/measured_comparison.h"
#include "core/io/comparison_json.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace hetplan;

namespace {

// One pipeline of two single-GPU stages and two micro-batches (the hand plan of
// tst_rank_phases: per rank compute 6 s, pp 0.75 s, bubble 3 s and 1 s, walls 9.75 s and
// 7.75 s), and a GPU run (its sends hold their ranks until the transfer ends) that measured
// both ranks once.
struct Fixture
{
    Plan plan;
    Evaluation predicted;
    Measurement measured;
};

MeasuredRank measuredRank(int rank, double wallS, double bubbleS, HopPhases hops)
{
    MeasuredRank r;
    r.rank = rank;
    r.stage = rank;
    RankIteration it;
    it.wallS = wallS;
    it.breakdown = {6, 0, 0.8, 0, bubbleS};
    it.hops = hops;
    r.iterations = {it};
    return r;
}

Fixture twoStages()
{
    Fixture f;
    Pipeline pipeline;
    pipeline.microBatches = 2;
    pipeline.stages.resize(2);
    for (int s = 0; s < 2; ++s)
        pipeline.stages[std::size_t(s)].gpus = {s};
    f.plan.pipelines = {pipeline};
    f.predicted.iterationS = 2;
    f.predicted.breakdown = {1, 0.5, 0.25, 0.125, 0.125};
    f.predicted.pipelines.resize(1);
    // forward, backward, compute, tp, hop, dp, the hop's forward part
    f.predicted.pipelines[0].stages = {{1, 2, 3, 0, 0.5, 0, 0.25}, {1, 2, 3, 0, 0, 0, 0}};
    f.measured.run.backend = BackendKind::Cuda;
    f.measured.loss = {3};
    f.measured.ranks = {measuredRank(0, 9.5, 2.7, {0, 0, 0.55, 0.5}),
                        measuredRank(1, 7.5, 0.7, {0.5, 0.45, 0, 0})};
    summarizeMeasurement(f.measured);
    return f;
}

const Comparison &row(const std::vector<Comparison> &rows, const PhaseKey &key)
{
    const auto it
        = std::find_if(rows.begin(), rows.end(), [&](const Comparison &c) { return c.key == key; });
    if (it == rows.end())
        qFatal("no row %s", labelOf(key).c_str());
    return *it;
}

} // namespace

class TestMeasuredComparison : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void labels_data()
    {
        QTest::addColumn<int>("pipeline"); // -1: none
        QTest::addColumn<int>("stage");
        QTest::addColumn<int>("rank");
        QTest::addColumn<int>("phase");
        QTest::addColumn<QString>("label");
        QTest::newRow("iteration") << -1 << -1 << -1 << int(Phase::Iteration) << u"iteration"_qs;
        QTest::newRow("run") << -1 << -1 << -1 << int(Phase::TpComm) << u"tp_comm"_qs;
        QTest::newRow("stage") << 0 << 1 << -1 << int(Phase::Compute) << u"p0 s1 compute"_qs;
        QTest::newRow("rank") << 2 << 0 << 5 << int(Phase::DpComm) << u"p2 s0 r5 dp_comm"_qs;
    }
    void labels()
    {
        QFETCH(int, pipeline);
        QFETCH(int, stage);
        QFETCH(int, rank);
        QFETCH(int, phase);
        QFETCH(QString, label);
        const auto given
            = [](int value) { return value < 0 ? std::nullopt : std::optional(value); };
        const PhaseKey key{given(pipeline), given(stage), given(rank), Phase(phase)};
        QCOMPARE(QString::fromStdString(labelOf(key)), label);
    }

    void rowsAreKeyedByRunThenStageThenRank()
    {
        const Fixture f = twoStages();
        const std::vector<Comparison> rows = compareMeasured(f.plan, f.predicted, f.measured);
        // The iteration, the five phases, four phases per stage, then per rank its five phases
        // and its two hops (each rank has one neighbour).
        QCOMPARE(rows.size(), std::size_t(1 + 5 + 2 * 4 + 2 * (5 + 2)));
        QCOMPARE(rows[0].key, PhaseKey::ofRun(Phase::Iteration));
        QCOMPARE(rows[0].predicted, 2.0);
        QCOMPARE(rows[5].key, PhaseKey::ofRun(Phase::Bubble));
        const Comparison &compute = rows[1 + 5 + 4];
        QCOMPARE(compute.key, PhaseKey::ofStage(0, 1, Phase::Compute));
        QCOMPARE(compute.predicted, 3.0 * 2); // per micro-batch times the micro-batches
        QCOMPARE(compute.measured, 6.0);
        QCOMPARE(rows[1 + 5 + 8].key, PhaseKey::ofRank(0, 0, 0, Phase::Compute));
        QCOMPARE(rows.back().key, PhaseKey::ofRank(0, 1, 1, Phase::HopOutPrev));
    }

    void bothSidesCountTheSameExchanges()
    {
        // The last stage receives activations and sends gradients: not 0 on either side.
        const Fixture f = twoStages();
        const std::vector<Comparison> rows = compareMeasured(f.plan, f.predicted, f.measured);
        const Comparison &lastPp = row(rows, PhaseKey::ofStage(0, 1, Phase::PpComm));
        QCOMPARE(lastPp.predicted, 0.75);
        QCOMPARE(lastPp.measured, 0.8);
        QCOMPARE(row(rows, PhaseKey::ofStage(0, 0, Phase::PpComm)).predicted, 0.75);
        // Each hop in and out, per neighbour, on both sides.
        QCOMPARE(row(rows, PhaseKey::ofRank(0, 1, 1, Phase::HopInPrev)).predicted, 0.5);
        QCOMPARE(row(rows, PhaseKey::ofRank(0, 1, 1, Phase::HopOutPrev)).measured, 0.45);
        QCOMPARE(row(rows, PhaseKey::ofRank(0, 0, 0, Phase::HopInNext)).measured, 0.55);
        QCOMPARE(row(rows, PhaseKey::ofRank(0, 0, 0, Phase::HopOutNext)).predicted, 0.5);
        QCOMPARE(row(rows, PhaseKey::ofRank(0, 1, 1, Phase::Bubble)).predicted, 1.0);

        // On Gloo a send alone returns once handed to the socket: the last stage's last
        // gradient and the first stage's first activation hold their ranks for nothing, and
        // the rank waits that long instead (docs/runtime.md, "Phases per rank").
        Fixture gloo = twoStages();
        gloo.measured.run.backend = BackendKind::Gloo;
        const std::vector<Comparison> cpu
            = compareMeasured(gloo.plan, gloo.predicted, gloo.measured);
        QCOMPARE(row(cpu, PhaseKey::ofStage(0, 1, Phase::PpComm)).predicted, 0.5);
        QCOMPARE(row(cpu, PhaseKey::ofRank(0, 1, 1, Phase::HopOutPrev)).predicted, 0.25);
        QCOMPARE(row(cpu, PhaseKey::ofRank(0, 0, 0, Phase::HopOutNext)).predicted, 0.25);
        QCOMPARE(row(cpu, PhaseKey::ofRank(0, 1, 1, Phase::Bubble)).predicted, 1.25);
    }

    void theRunIsTheEndingRanksOnBothSides()
    {
        // Rank 0 ends the iteration on both sides; before, the prediction gave the slowest
        // stage's figures and the measurement those of the rank that waited least.
        const Fixture f = twoStages();
        const std::vector<Comparison> rows = compareMeasured(f.plan, f.predicted, f.measured);
        const Comparison &bubble = row(rows, PhaseKey::ofRun(Phase::Bubble));
        QCOMPARE(bubble.predicted, 3.0);
        QCOMPARE(bubble.measured, 2.7);
        QCOMPARE(row(rows, PhaseKey::ofRun(Phase::PpComm)).predicted, 0.75);
        QCOMPARE(f.measured.iterationS, 9.5);
    }

    void ranksWithoutRecordedHopsHaveNoHopRows()
    {
        Fixture f = twoStages();
        for (MeasuredRank &r : f.measured.ranks)
            r.iterations[0].hops.reset();
        const std::vector<Comparison> rows = compareMeasured(f.plan, f.predicted, f.measured);
        QCOMPARE(rows.size(), std::size_t(1 + 5 + 2 * 4 + 2 * 5));
    }

    void jsonCarriesTheKeyAsFields()
    {
        const Fixture f = twoStages();
        const nlohmann::json rows
            = comparisonToJson(compareMeasured(f.plan, f.predicted, f.measured));
        QCOMPARE(rows.size(), std::size_t(28));
        QCOMPARE(rows[0].at("phase").get<std::string>(), std::string("iteration"));
        QVERIFY(!rows[0].contains("pipeline"));
        const nlohmann::json &stage = rows[1 + 5 + 4];
        QCOMPARE(stage.at("pipeline").get<int>(), 0);
        QCOMPARE(stage.at("stage").get<int>(), 1);
        QCOMPARE(stage.at("phase").get<std::string>(), std::string("compute"));
        QCOMPARE(stage.at("what").get<std::string>(), std::string("p0 s1 compute"));
        QVERIFY(!stage.contains("rank"));
        QCOMPARE(stage.at("measured_s").get<double>(), 6.0);
        const nlohmann::json &hop = rows.back();
        QCOMPARE(hop.at("rank").get<int>(), 1);
        QCOMPARE(hop.at("phase").get<std::string>(), std::string("hop_out_prev"));
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestMeasuredComparison)
#include "tst_measured_comparison.moc"
