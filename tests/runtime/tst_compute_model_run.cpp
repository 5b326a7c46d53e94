// The compute model a probe grounds (docs/cost-models.md, "Measured layers"): probe this
// machine's CPU on two local ranks for gpt3-350m at --scale 8, import the probe, run a two-stage
// plan over Gloo at micro-batch 1 and 2, and compare every rank's compute phase with the
// prediction on the imported cluster. With the measured layer table each is within 15 %; priced by
// the GEMM model alone (the table taken out of the cluster) they were 3-17x too fast.
#include "run_test_support.h"
#include "tests/test_registry.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <vector>

using namespace hetplan::runtime::test;

namespace {

constexpr int kRanks = 2;
const QString kSeqLen = QStringLiteral("1024");
const QString kScale = QStringLiteral("8");
// On a quiet host the ranks' compute came within 1-6 % of the prediction. Other work on the
// host moves the probe's medians and the run's compute apart (by up to 45 % on a 2-core host
// under a load of 10), which is why the test runs alone (RUN_SERIAL).
constexpr double kTolerance = 0.15;

QString inDir(const QTemporaryDir &dir, const QString &name)
{
    return dir.path() + QLatin1Char('/') + name;
}

// hetplan-probe on `kRanks` local ranks meeting in `dir` for the model as the runs train it;
// rank 0 writes `out`.
bool probe(const QTemporaryDir &dir, const QString &out)
{
    return probeLocalRanks(kRanks, inDir(dir, QStringLiteral("rendezvous")),
                           {QStringLiteral("--no-gpu"), QStringLiteral("--repeat"),
                            QStringLiteral("7"), QStringLiteral("--model"),
                            QStringLiteral("gpt3-350m"), QStringLiteral("--seq-len"), kSeqLen,
                            QStringLiteral("--scale"), kScale, QStringLiteral("--micro-batch"),
                            QStringLiteral("2"), QStringLiteral("--out"), out,
                            QStringLiteral("--timeout-s"), QStringLiteral("200")});
}

QJsonObject readJson(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return QJsonDocument::fromJson(file.readAll()).object();
}

void writeJson(const QString &path, const QJsonObject &object)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(object).toJson()) < 0)
        qFatal("cannot write %s", qPrintable(path));
}

// Two stages of 12 layers on the machine's two CPU ranks, 4 sequences per iteration.
QJsonObject twoStagePlan(const QString &cluster, const QString &machine, int microBatch)
{
    const auto stageOf = [&](int rank, int begin) {
        return QJsonObject{{QStringLiteral("gpus"),
                            QJsonArray{machine + QLatin1Char(':') + QString::number(rank)}},
                           {QStringLiteral("layers"), QJsonArray{begin, begin + 12}}};
    };
    const QJsonObject pipeline{
        {QStringLiteral("micro_batch"), microBatch},
        {QStringLiteral("micro_batches"), 4 / microBatch},
        {QStringLiteral("stages"), QJsonArray{stageOf(0, 0), stageOf(1, 12)}}};
    const QJsonObject workload{{QStringLiteral("mode"), QStringLiteral("train")},
                               {QStringLiteral("global_batch"), 4},
                               {QStringLiteral("micro_batch"), microBatch},
                               {QStringLiteral("seq_len"), kSeqLen.toInt()},
                               {QStringLiteral("precision"), QStringLiteral("fp32")},
                               {QStringLiteral("recompute"), false}};
    return {{QStringLiteral("format"), QStringLiteral("hetplan.plan/1")},
            {QStringLiteral("planner"), QStringLiteral("hand")},
            {QStringLiteral("cost_model"), QStringLiteral("hetplan")},
            {QStringLiteral("cluster"), cluster},
            {QStringLiteral("model"), QStringLiteral("gpt3-350m")},
            {QStringLiteral("workload"), workload},
            {QStringLiteral("pipelines"), QJsonArray{pipeline}}};
}

struct ComputeRow
{
    double predictedS = 0;
    double measuredS = 0;
    double error() const { return predictedS > 0 ? measuredS / predictedS - 1 : INFINITY; }
};

// Every rank's compute row of `evaluate --measured --json` on `cluster`, in rank order.
std::vector<ComputeRow> computeRows(const QString &cluster, const QString &plan,
                                    const QString &measured)
{
    const CliRun run = runCli({QStringLiteral("evaluate"), QStringLiteral("--plan"), plan,
                               QStringLiteral("--cluster"), cluster, QStringLiteral("--measured"),
                               measured, QStringLiteral("--json")});
    if (run.exitCode != 0)
        qFatal("evaluate: %s", qPrintable(run.err));
    std::vector<ComputeRow> rows(kRanks);
    const QJsonArray all = QJsonDocument::fromJson(run.out.toUtf8())
                               .object()
                               .value(QStringLiteral("measured"))
                               .toArray();
    for (const QJsonValue &value : all) {
        const QJsonObject r = value.toObject();
        if (!r.contains(QStringLiteral("rank"))
            || r.value(QStringLiteral("phase")).toString() != QStringLiteral("compute"))
            continue;
        const int rank = r.value(QStringLiteral("rank")).toInt();
        if (rank < 0 || rank >= kRanks)
            qFatal("rank %d out of range", rank);
        rows[std::size_t(rank)] = {r.value(QStringLiteral("predicted_s")).toDouble(),
                                   r.value(QStringLiteral("measured_s")).toDouble()};
    }
    return rows;
}

} // namespace

class TestComputeModelRun : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyRanksComputeIsPredictedFromTheProbedLayer()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(QDir().mkpath(inDir(dir, QStringLiteral("rendezvous"))));
        const QString probeFile = inDir(dir, QStringLiteral("probe.json"));
        const QString cluster = inDir(dir, QStringLiteral("cluster.json"));
        const QString gemmOnly = inDir(dir, QStringLiteral("gemm-only.json"));

        QVERIFY(probe(dir, probeFile));
        const CliRun imported
            = runCli({QStringLiteral("import"), probeFile, QStringLiteral("--out"), cluster});
        QVERIFY2(imported.exitCode == 0, qPrintable(imported.err));
        // The same cluster without the layer tables: compute by the GEMM model, as before.
        QJsonObject withoutTables = readJson(cluster);
        QJsonArray types = withoutTables.value(QStringLiteral("gpu_types")).toArray();
        QCOMPARE(types.size(), 1);
        QJsonObject type = types.at(0).toObject();
        QVERIFY(type.contains(QStringLiteral("measured_layers")));
        type.remove(QStringLiteral("measured_layers"));
        types[0] = type;
        withoutTables.insert(QStringLiteral("gpu_types"), types);
        writeJson(gemmOnly, withoutTables);
        const QString clusterName = readJson(cluster).value(QStringLiteral("name")).toString();
        const QString machine = readJson(cluster)
                                    .value(QStringLiteral("machines"))
                                    .toArray()
                                    .at(0)
                                    .toObject()
                                    .value(QStringLiteral("name"))
                                    .toString();

        for (int microBatch : {1, 2}) {
            const QString suffix = QString::number(microBatch) + QStringLiteral(".json");
            const QString plan = inDir(dir, QStringLiteral("plan-mb") + suffix);
            const QString measured = inDir(dir, QStringLiteral("run-mb") + suffix);
            writeJson(plan, twoStagePlan(clusterName, machine, microBatch));
            const CliRun ran = runCli(
                {QStringLiteral("run"), QStringLiteral("--plan"), plan, QStringLiteral("--cluster"),
                 cluster, QStringLiteral("--scale"), kScale, QStringLiteral("--iterations"),
                 QStringLiteral("4"), QStringLiteral("--out"), measured});
            QVERIFY2(ran.exitCode == 0, qPrintable(ran.err));
            const std::vector<ComputeRow> table = computeRows(cluster, plan, measured);
            const std::vector<ComputeRow> gemm = computeRows(gemmOnly, plan, measured);
            for (int r = 0; r < kRanks; ++r) {
                const ComputeRow &t = table[std::size_t(r)];
                const ComputeRow &g = gemm[std::size_t(r)];
                qInfo("micro-batch %d, rank %d: compute measured %.3f s; predicted %.3f s "
                      "(%+.0f %%) from the layer table, %.3f s (%+.0f %%) by the GEMM model",
                      microBatch, r, t.measuredS, t.predictedS, 100 * t.error(), g.predictedS,
                      100 * g.error());
                QVERIFY2(std::abs(t.error()) <= kTolerance,
                         qPrintable(QStringLiteral("rank %1 at micro-batch %2: %3 %")
                                        .arg(r)
                                        .arg(microBatch)
                                        .arg(100 * t.error())));
                // The GEMM model alone misses what is not a GEMM.
                QVERIFY(std::abs(g.error()) > kTolerance);
            }
        }
    }
};

HETPLAN_TEST_GUILESS_MAIN(TestComputeModelRun)
#include "tst_compute_model_run.moc"
