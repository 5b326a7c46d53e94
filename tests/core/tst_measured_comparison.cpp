// Measured beside predicted (docs/runtime.md, "Comparing with the prediction"): every row is
// keyed by run or stage and phase, reports format the key as a label, and the JSON carries the
// key as fields so no reader has to parse the label.
#include "core/cost/measured_comparison.h"
#include "core/io/comparison_json.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace hetplan;

namespace {

// One pipeline of two stages, four micro-batches, and a run that measured both stages.
struct Fixture
{
    Plan plan;
    Evaluation predicted;
    Measurement measured;
};

Fixture twoStages()
{
    Fixture f;
    f.plan.pipelines.resize(1);
    f.plan.pipelines[0].microBatches = 4;
    f.predicted.iterationS = 2;
    f.predicted.breakdown = {1, 0.5, 0.25, 0.125, 0.125};
    f.predicted.pipelines.resize(1);
    f.predicted.pipelines[0].stages.resize(2);
    f.predicted.pipelines[0].stages[1].computeS = 0.25;
    f.predicted.pipelines[0].stages[1].hopS = 0.01;
    f.predicted.pipelines[0].stages[1].dpCommS = 0.3;
    f.measured.iterationS = 2.5;
    f.measured.breakdown = {1.5, 0.5, 0.25, 0.125, 0.125};
    for (int s = 0; s < 2; ++s) {
        MeasuredStage stage;
        stage.stage = s;
        stage.breakdown = {1.25 + s, 0, 0.05, 0.3, 0};
        f.measured.stages.push_back(stage);
    }
    return f;
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

    void rowsAreKeyedByRunThenStage()
    {
        const Fixture f = twoStages();
        const std::vector<Comparison> rows = compareMeasured(f.plan, f.predicted, f.measured);
        // The iteration, the five phases, then four phases per stage.
        QCOMPARE(rows.size(), std::size_t(1 + 5 + 2 * 4));
        QCOMPARE(rows[0].key, PhaseKey::ofRun(Phase::Iteration));
        QCOMPARE(rows[0].relativeError(), 0.25);
        QCOMPARE(rows[5].key, PhaseKey::ofRun(Phase::Bubble));
        const Comparison &compute = rows[1 + 5 + 4];
        QCOMPARE(compute.key, PhaseKey::ofStage(0, 1, Phase::Compute));
        QCOMPARE(compute.predicted, 0.25 * 4); // per micro-batch times the micro-batches
        QCOMPARE(compute.measured, 2.25);
        const Comparison &dp = rows.back();
        QCOMPARE(dp.key, PhaseKey::ofStage(0, 1, Phase::DpComm));
        QCOMPARE(dp.predicted, 0.3); // once per iteration
    }

    void jsonCarriesTheKeyAsFields()
    {
        const Fixture f = twoStages();
        const nlohmann::json rows
            = comparisonToJson(compareMeasured(f.plan, f.predicted, f.measured));
        QCOMPARE(rows.size(), std::size_t(14));
        QCOMPARE(rows[0].at("phase").get<std::string>(), std::string("iteration"));
        QVERIFY(!rows[0].contains("pipeline"));
        const nlohmann::json &stage = rows[1 + 5 + 4];
        QCOMPARE(stage.at("pipeline").get<int>(), 0);
        QCOMPARE(stage.at("stage").get<int>(), 1);
        QCOMPARE(stage.at("phase").get<std::string>(), std::string("compute"));
        QCOMPARE(stage.at("what").get<std::string>(), std::string("p0 s1 compute"));
        QVERIFY(!stage.contains("rank"));
        QCOMPARE(stage.at("measured_s").get<double>(), 2.25);
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestMeasuredComparison)
#include "tst_measured_comparison.moc"
