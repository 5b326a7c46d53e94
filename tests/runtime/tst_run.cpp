// `hetplan-cli run` trains the same model to the same weights whatever the plan (issue 13):
// for every plan shape, the loss of each iteration and every weight after a few iterations equal
// the single-process reference run (runtime/model/reference_run.h) within fp32 tolerance.
#include "core/io/catalog_json.h"
#include "core/io/files.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"
#include "core/io/measurement_json.h"
#include "core/model/topology.h"
#include "model_test_support.h"
#include "run_test_support.h"
#include "runtime/model/model_shard.h"
#include "runtime/model/model_tensors.h"
#include "runtime/model/reference_run.h"
#include "runtime/model/weight_set.h"
#include "runtime/worker/weight_dump.h"
#include "tests/test_registry.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

using namespace hetplan;
using namespace hetplan::runtime;
using namespace hetplan::runtime::test;

namespace {

// fp32 with a different summation order (TP partial sums, micro-batch and replica splits): the
// loss and the weights agree within the runtime's documented tolerances (weight_set.h): Adam's
// for the bulk of the elements, with the few outliers a gradient at rounding noise can cause,
// and SGD's, which is proportional to the gradient and so also catches a gradient scaled wrongly
// as a whole. A wrong gradient (a replica missed or counted twice) is far outside either. The
// reference runs OpenBLAS on one thread, as the workers do, so neither depends on the machine's
// core count.

struct PlanFacts
{
    ModelSpec model;
    int seqLen = 0;
    int globalBatch = 0;
    int microBatch = 0;
    Optimizer optimizer = Optimizer::Adam;
};

PlanFacts planFacts(const QString &planPath, const QString &modelPath)
{
    const std::string path = planPath.toStdString();
    const std::string text = orFail(readTextFile(path));
    const Cluster cluster = orFail(loadCluster(orFail(planClusterName(text, path))));
    const Topology topology = orFail(Topology::build(cluster, builtinGpuCatalog()));
    const Plan plan = orFail(parsePlan(text, path, topology));
    PlanFacts facts;
    facts.model = orFail(loadModel(modelPath.isEmpty() ? plan.model : modelPath.toStdString()));
    facts.seqLen = plan.workload.train.seqLen;
    facts.globalBatch = plan.workload.train.globalBatch;
    facts.microBatch = plan.pipelines.front().microBatch;
    facts.optimizer = plan.workload.train.optimizer;
    return facts;
}

} // namespace

class TestRun : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { setBlasThreads(1); }
    void matchesReference_data();
    void matchesReference();
};

void TestRun::matchesReference_data()
{
    QTest::addColumn<QString>("plan");
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("scale");
    QTest::addColumn<int>("iterations");
    const QString tiny = runtimeData("tiny.model.json");
    QTest::newRow("one stage") << runtimeData("one-stage.plan.json") << tiny << 1 << 3;
    QTest::newRow("plain pipeline") << runtimeData("pipeline.plan.json") << tiny << 1 << 3;
    QTest::newRow("TP 2 then TP 1") << runtimeData("tp2-tp1.plan.json") << tiny << 1 << 3;
    QTest::newRow("two asymmetric pipelines")
        << runtimeData("asymmetric.plan.json") << tiny << 1 << 3;
    // The workload's "optimizer": "sgd": every weight is w − lr·g of the reference's gradient.
    QTest::newRow("two asymmetric pipelines, SGD")
        << runtimeData("asymmetric-sgd.plan.json") << tiny << 1 << 1;
    QTest::newRow("dp 3 with uneven dp_split")
        << runtimeData("uneven-dp.plan.json") << tiny << 1 << 3;
    // HexiScale §3.1's case study (llama2-13b, 40 layers) with the head dimension, FFN,
    // vocabulary and sequence divided by 64: the plan HexiScale makes for it (five stages,
    // TP 2 and 1, 24 micro-batches), and a two-pipeline plan with a dp 2 stage after a TP 2
    // one and TP 2 on a head stage.
    QTest::newRow("case study (HexiScale's plan) at scale 64")
        << runtimeData("case-study.plan.json") << QString() << 64 << 3;
    QTest::newRow("case study, two pipelines, at scale 64")
        << QStringLiteral(HETPLAN_SOURCE_DIR "/tests/data/good/case-study-2pp.plan.json")
        << QString() << 64 << 3;
}

void TestRun::matchesReference()
{
    QFETCH(QString, plan);
    QFETCH(QString, model);
    QFETCH(int, scale);
    QFETCH(int, iterations);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString out = dir.filePath(QStringLiteral("measurement.json"));
    const QString weights = dir.filePath(QStringLiteral("weights"));
    QStringList args = {QStringLiteral("run"),
                        QStringLiteral("--plan"),
                        plan,
                        QStringLiteral("--scale"),
                        QString::number(scale),
                        QStringLiteral("--iterations"),
                        QString::number(iterations),
                        QStringLiteral("--out"),
                        out,
                        QStringLiteral("--dump-weights"),
                        weights};
    if (!model.isEmpty())
        args << QStringLiteral("--model") << model;
    const CliRun run = runCli(args);
    QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
    qInfo("run took %.1f s", run.seconds);

    const PlanFacts facts = planFacts(plan, model);
    const ModelConfig config = orFail(scaledModelConfig(facts.model, facts.seqLen, scale));
    TrainingSetup setup;
    setup.seed = 0;
    setup.globalBatch = facts.globalBatch;
    setup.optimizer = facts.optimizer;
    const ReferenceResult reference
        = orFail(referenceRun(config, setup, facts.microBatch, iterations));

    const Measurement measured
        = orFail(parseMeasurement(orFail(readTextFile(out.toStdString())), out.toStdString()));
    QCOMPARE(measured.loss.size(), std::size_t(iterations));
    for (int i = 0; i < iterations; ++i) {
        const double expected = reference.lossPerIteration[std::size_t(i)];
        const double actual = measured.loss[std::size_t(i)];
        QVERIFY2(std::abs(actual - expected) <= kLossRelativeTolerance * std::abs(expected),
                 qPrintable(QStringLiteral("iteration %1: loss %2, reference %3")
                                .arg(i)
                                .arg(actual, 0, 'g', 9)
                                .arg(expected, 0, 'g', 9)));
    }

    // Every element of every tensor is held by some rank, and every copy equals the reference.
    WeightSet assembled;
    std::map<std::string, std::vector<bool>> covered;
    for (const MeasuredRank &r : measured.ranks) {
        const std::string path
            = (weights + QStringLiteral("/rank-%1.weights").arg(r.rank)).toStdString();
        for (const WeightSlice &s : orFail(readWeightDump(path))) {
            const auto expected = reference.finalWeights.find(s.name);
            QVERIFY2(expected != reference.finalWeights.end(), s.name.c_str());
            QCOMPARE(std::int64_t(expected->second.size()), s.fullElements);
            std::vector<float> &full = assembled[s.name];
            full.resize(std::size_t(s.fullElements), 0.0f);
            std::vector<bool> &seen = covered[s.name];
            seen.resize(std::size_t(s.fullElements), false);
            for (std::int64_t e = s.sliceBegin; e < s.sliceEnd; ++e) {
                const float value = s.values[std::size_t(e - s.sliceBegin)];
                // A replica's copy must equal the copy already placed (replicas stay in sync).
                if (seen[std::size_t(e)])
                    QCOMPARE(full[std::size_t(e)], value);
                full[std::size_t(e)] = value;
                seen[std::size_t(e)] = true;
            }
        }
    }
    QCOMPARE(covered.size(), reference.finalWeights.size());
    for (const auto &[name, seen] : covered)
        QVERIFY2(std::all_of(seen.begin(), seen.end(), [](bool b) { return b; }), name.c_str());
    const WeightTolerance tolerance
        = facts.optimizer == Optimizer::Sgd
              ? sgdWeightTolerance(setup.adam.learningRate, iterations)
              : adamWeightTolerance(setup.adam.learningRate, iterations);
    const Status same = compareWeightSets(reference.finalWeights, assembled, tolerance, "weights");
    QVERIFY2(same.ok(), same.ok() ? "" : same.error().message.c_str());
}

HETPLAN_TEST_APPLESS_MAIN(TestRun)
#include "tst_run.moc"
