// hetplan.measurement/1: what `hetplan-cli run` writes (docs/runtime.md). The summary follows
// the documented rules, the writer and the strict reader agree, and bad files are refused
// with the field's path.
#include "core/cost/measurement.h"
#include "core/io/measurement_json.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace hetplan;

namespace {

MeasuredRank rank(int index, int stage, std::vector<RankIteration> iterations)
{
    MeasuredRank r;
    r.rank = index;
    r.gpu = "A:" + std::to_string(index);
    r.stage = stage;
    r.peakMemoryGiB = 0.5 + index;
    r.iterations = std::move(iterations);
    return r;
}

RankIteration iteration(double wallS, double bubbleS)
{
    RankIteration it;
    it.wallS = wallS;
    it.breakdown.bubbleS = bubbleS;
    it.breakdown.ppCommS = 0.1;
    it.breakdown.computeS = wallS - bubbleS - 0.1;
    return it;
}

// Two stages of one rank each, three iterations; rank 1 waits more (the bubble of stage 1).
Measurement sample()
{
    Measurement m;
    m.run = {BackendKind::Gloo, "p.plan.json", "tiny", 4, 3, 7, 8, 16, {"localhost"}, {}};
    m.loss = {4.0, 3.5, 3.25};
    m.ranks = {rank(1, 1, {iteration(2.0, 1.0), iteration(1.2, 0.6), iteration(1.0, 0.4)}),
               rank(0, 0, {iteration(1.5, 0.2), iteration(1.0, 0.1), iteration(1.1, 0.1)})};
    summarizeMeasurement(m);
    return m;
}

} // namespace

class TestMeasurementJson : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void summaryFollowsTheDocumentedRules();
    void writtenFilesReadBackUnchanged();
    void predictedMemoryIsKeptWhereRecorded();
    void mergeRefusesPartsOfDifferentRuns();
    void backendsAreSpelledAsTheFileSpellsThem();
    void badFilesNameTheField_data();
    void badFilesNameTheField();
};

void TestMeasurementJson::summaryFollowsTheDocumentedRules()
{
    const Measurement m = sample();
    QCOMPARE(m.ranks.front().rank, 0); // sorted
    QCOMPARE(m.iterations.size(), std::size_t(3));
    // The wall time and the breakdown of the rank that ends the iteration: rank 1, then rank 0.
    QCOMPARE(m.iterations[0].iterationS, 2.0);
    QCOMPARE(m.iterations[0].breakdown.bubbleS, 1.0);
    QCOMPARE(m.iterations[2].iterationS, 1.1);
    QCOMPARE(m.iterations[2].breakdown.bubbleS, 0.1);
    // Means skip the warm-up iteration: (1.2 + 1.1) / 2, (0.6 + 0.1) / 2.
    QVERIFY(qFuzzyCompare(m.iterationS, 1.15));
    QVERIFY(qFuzzyCompare(m.tokensPerS, 8 * 16 / 1.15));
    QVERIFY(qFuzzyCompare(m.breakdown.bubbleS, 0.35));
    QCOMPARE(m.stages.size(), std::size_t(2));
    QVERIFY(qFuzzyCompare(m.stages[1].breakdown.bubbleS, 0.5));
    QCOMPARE(m.stages[1].peakMemoryGiB, 1.5);
    QCOMPARE(m.iterations[1].loss, 3.5);
}

void TestMeasurementJson::writtenFilesReadBackUnchanged()
{
    const std::string text = writeMeasurement(sample());
    auto read = parseMeasurement(text, "m.json");
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
    QCOMPARE(writeMeasurement(*read), text);
    QCOMPARE(read->run.seed, std::uint64_t(7));
    QCOMPARE(read->ranks[1].iterations[0].wallS, 2.0);
    QVERIFY(!read->ranks[1].iterations[0].hops); // not recorded: absent, not zero

    // A rank's hops per neighbour and direction (docs/runtime.md, "Phases per rank").
    Measurement withHops = sample();
    withHops.ranks[1].iterations[2].hops = HopPhases{0.5, 0.25, 0, 0};
    const auto back = parseMeasurement(writeMeasurement(withHops), "m.json");
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QCOMPARE(back->ranks[1].iterations[2].hops, std::optional(HopPhases{0.5, 0.25, 0, 0}));
    QVERIFY(!back->ranks[1].iterations[1].hops);
    QCOMPARE(nlohmann::json::parse(
                 writeMeasurement(withHops))["ranks"][1]["iterations"][2]["hops_s"]["hop_in_prev"]
                 .get<double>(),
             0.5);
}

// A GPU rank's predicted memory travels with it; a CPU rank's file has no such field.
void TestMeasurementJson::predictedMemoryIsKeptWhereRecorded()
{
    Measurement m = sample();
    m.ranks[1].predictedMemoryGiB = 21.5;
    const std::string text = writeMeasurement(m);
    auto read = parseMeasurement(text, "m.json");
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
    QCOMPARE(read->ranks[1].predictedMemoryGiB, 21.5);
    QCOMPARE(read->ranks[0].predictedMemoryGiB, 0.0);
    QCOMPARE(text.find("predicted_memory_GiB"), text.rfind("predicted_memory_GiB"));
}

void TestMeasurementJson::mergeRefusesPartsOfDifferentRuns()
{
    Measurement a = sample();
    Measurement b = sample();
    a.ranks.resize(1);
    b.ranks.erase(b.ranks.begin());
    auto merged = mergeRankMeasurements({a, b});
    QVERIFY(merged.ok());
    QCOMPARE(merged->ranks.size(), std::size_t(2));
    QCOMPARE(writeMeasurement(*merged), writeMeasurement(sample()));
    b.loss[2] = 3.0;
    QVERIFY(!mergeRankMeasurements({a, b}).ok());
    QVERIFY(!mergeRankMeasurements({a, a}).ok()); // rank 0 twice
}

void TestMeasurementJson::backendsAreSpelledAsTheFileSpellsThem()
{
    for (const auto &[kind, name] :
         {std::pair{BackendKind::Gloo, "gloo-cpu"}, std::pair{BackendKind::Cuda, "cuda-nccl"}}) {
        Measurement m = sample();
        m.run.backend = kind;
        const std::string text = writeMeasurement(m);
        QCOMPARE(nlohmann::json::parse(text)["run"]["backend"].get<std::string>(),
                 std::string(name));
        auto back = parseMeasurement(text, "m.json");
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
        QVERIFY(back->run.backend == kind);
    }
}

void TestMeasurementJson::badFilesNameTheField_data()
{
    QTest::addColumn<QString>("pointer");
    QTest::addColumn<QString>("replacement");
    QTest::addColumn<QString>("expected");
    QTest::newRow("a loss missing") << "/loss"
                                    << "[4.0, 3.5]"
                                    << "loss";
    QTest::newRow("negative wall time") << "/ranks/0/iterations/1/wall_s"
                                        << "-1"
                                        << "ranks[0].iterations[1].wall_s";
    QTest::newRow("unknown phase") << "/breakdown_s"
                                   << R"({"compute": 1, "tp_comm": 0, "pp_comm": 0, "dp_comm": 0,
                                "bubble": 0, "idle": 2})"
                                   << "breakdown_s.idle";
    QTest::newRow("ranks out of order") << "/ranks/1/rank"
                                        << "0"
                                        << "ranks[1].rank";
    QTest::newRow("wrong format") << "/format"
                                  << "\"hetplan.plan/1\""
                                  << "format";
    QTest::newRow("unknown backend") << "/run/backend"
                                     << "\"gloo\""
                                     << "valid: gloo-cpu, cuda-nccl";
}

void TestMeasurementJson::badFilesNameTheField()
{
    QFETCH(QString, pointer);
    QFETCH(QString, replacement);
    QFETCH(QString, expected);
    nlohmann::json doc = nlohmann::json::parse(writeMeasurement(sample()));
    doc[nlohmann::json::json_pointer(pointer.toStdString())]
        = nlohmann::json::parse(replacement.toStdString());
    auto read = parseMeasurement(doc.dump(), "bad.measurement.json");
    QVERIFY(!read.ok());
    QCOMPARE(read.error().kind, ErrorKind::BadInput);
    const std::string &message = read.error().message;
    QVERIFY2(message.find("bad.measurement.json") != std::string::npos, message.c_str());
    QVERIFY2(message.find(expected.toStdString()) != std::string::npos, message.c_str());
}

HETPLAN_TEST_APPLESS_MAIN(TestMeasurementJson)
#include "tst_measurement_json.moc"
