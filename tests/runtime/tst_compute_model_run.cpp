// The compute model a probe grounds (docs/cost-models.md, "Measured layers"): probe this
// machine's CPU on two local ranks for gpt3-350m at --scale 8, import the probe, run a two-stage
// plan over Gloo at micro-batch 1 and 2, and compare every rank's compute phase with the
// prediction on the imported cluster. With the measured layer table each is within 25 %; priced by
// the GEMM model alone (the table taken out of the cluster) they were 2-17x too fast. A second
// probe after the runs tells whether the machine's speed held; if it did not, a miss is tried
// again (skipped where the speed changed under every attempt).
#include "run_test_support.h"
#include "tests/test_registry.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace hetplan::runtime::test;

namespace {

constexpr int kRanks = 2;
const QString kSeqLen = QStringLiteral("1024");
const QString kScale = QStringLiteral("8");
// Within 25 %, the bound of a per-rank phase row (docs/emulated-cluster.md, "The fidelity
// loop"): on a quiet host the ranks' compute came within 1-6 % of the prediction on some machines
// and 11-17 % (one rank once 44 %) above it on another, where the optimizer step took what the
// probe predicted (8.6 ms against 8.4 ms) and a layer's time changed 8 % from one layer timed to
// 24; the rest of that gap is not explained. Other work on the host moves the probe's medians
// and the run's compute apart (by up to 45 % on a 2-core host under a load of 10), which is why
// the test runs alone (RUN_SERIAL). A virtual machine's speed also changes with what shares its
// physical host (docs/emulated-cluster.md, "The machine's speed"): a probe after
// the runs tells, and a miss while it moved by more than kSpeedChange is tried again, up to
// kAttempts in all; a machine that changed speed under every attempt skips the test.
constexpr double kTolerance = 0.25;
constexpr double kSpeedChange = 0.10;
constexpr int kAttempts = 3;

QString inDir(const QTemporaryDir &dir, const QString &name)
{
    return dir.path() + QLatin1Char('/') + name;
}

// hetplan-probe on `kRanks` local ranks meeting in `rendezvous` for the model as the runs train it;
// rank 0 writes `out`.
bool probe(const QString &rendezvous, const QString &out)
{
    return probeLocalRanks(kRanks, rendezvous,
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

// A probe of this machine imported as a cluster: the cluster file's path.
QString probeAndImport(const QTemporaryDir &dir, const QString &name)
{
    const QString cluster = inDir(dir, name + QStringLiteral(".cluster.json"));
    const QString rendezvous = inDir(dir, name + QStringLiteral(".rendezvous"));
    const QString probeFile = inDir(dir, name + QStringLiteral(".probe.json"));
    if (!QDir().mkpath(rendezvous) || !probe(rendezvous, probeFile))
        qFatal("the probe %s failed", qPrintable(name));
    const CliRun imported
        = runCli({QStringLiteral("import"), probeFile, QStringLiteral("--out"), cluster});
    if (imported.exitCode != 0)
        qFatal("import: %s", qPrintable(imported.err));
    return cluster;
}

// `cluster` without its GPU type's layer table, written to `out`: compute by the GEMM model.
void writeWithoutLayerTable(const QJsonObject &cluster, const QString &out)
{
    QJsonObject withoutTables = cluster;
    QJsonArray types = withoutTables.value(QStringLiteral("gpu_types")).toArray();
    if (types.size() != 1 || !types.at(0).toObject().contains(QStringLiteral("measured_layers")))
        qFatal("the imported cluster has not one GPU type with a layer table");
    QJsonObject type = types.at(0).toObject();
    type.remove(QStringLiteral("measured_layers"));
    types[0] = type;
    withoutTables.insert(QStringLiteral("gpu_types"), types);
    writeJson(out, withoutTables);
}

struct Attempt
{
    QStringList misses;     // ranks outside kTolerance of the layer table's prediction
    double speedChange = 0; // the largest change of a predicted compute, probe after / before
};

// Probe, run the two-stage plan at micro-batch 1 and 2, probe again: every rank's compute
// against the first probe's prediction, and how far the second probe's predictions moved.
Attempt probeRunAndCompare(const QTemporaryDir &dir, int attempt)
{
    const QString tag = QStringLiteral("attempt") + QString::number(attempt);
    const QString before = probeAndImport(dir, tag + QStringLiteral("-before"));
    const QJsonObject cluster = readJson(before);
    const QString gemmOnly = inDir(dir, tag + QStringLiteral("-gemm-only.json"));
    writeWithoutLayerTable(cluster, gemmOnly);
    const QString clusterName = cluster.value(QStringLiteral("name")).toString();
    const QString machine = cluster.value(QStringLiteral("machines"))
                                .toArray()
                                .at(0)
                                .toObject()
                                .value(QStringLiteral("name"))
                                .toString();
    QStringList plans;
    QStringList runs;
    for (int microBatch : {1, 2}) {
        const QString suffix = QString::number(microBatch) + QStringLiteral(".json");
        plans << inDir(dir, tag + QStringLiteral("-plan-mb") + suffix);
        runs << inDir(dir, tag + QStringLiteral("-run-mb") + suffix);
        writeJson(plans.back(), twoStagePlan(clusterName, machine, microBatch));
        const CliRun ran = runCli({QStringLiteral("run"), QStringLiteral("--plan"), plans.back(),
                                   QStringLiteral("--cluster"), before, QStringLiteral("--scale"),
                                   kScale, QStringLiteral("--iterations"), QStringLiteral("4"),
                                   QStringLiteral("--out"), runs.back()});
        if (ran.exitCode != 0)
            qFatal("run: %s", qPrintable(ran.err));
    }
    const QString after = probeAndImport(dir, tag + QStringLiteral("-after"));

    Attempt result;
    for (int i = 0; i < plans.size(); ++i) {
        const int microBatch = i + 1;
        const std::vector<ComputeRow> table = computeRows(before, plans[i], runs[i]);
        const std::vector<ComputeRow> gemm = computeRows(gemmOnly, plans[i], runs[i]);
        const std::vector<ComputeRow> later = computeRows(after, plans[i], runs[i]);
        for (int r = 0; r < kRanks; ++r) {
            const ComputeRow &t = table[std::size_t(r)];
            const ComputeRow &g = gemm[std::size_t(r)];
            const double change = later[std::size_t(r)].predictedS / t.predictedS - 1;
            qInfo("attempt %d, micro-batch %d, rank %d: compute measured %.3f s; predicted "
                  "%.3f s (%+.0f %%) from the layer table (%+.0f %% by the probe after the "
                  "runs), %.3f s (%+.0f %%) by the GEMM model",
                  attempt, microBatch, r, t.measuredS, t.predictedS, 100 * t.error(), 100 * change,
                  g.predictedS, 100 * g.error());
            result.speedChange = std::max(result.speedChange, std::abs(change));
            if (std::abs(t.error()) > kTolerance)
                result.misses << QStringLiteral("rank %1 at micro-batch %2: %3 %")
                                     .arg(r)
                                     .arg(microBatch)
                                     .arg(100 * t.error(), 0, 'f', 1);
            // The GEMM model alone misses what is not a GEMM.
            if (std::abs(g.error()) <= kTolerance)
                qFatal("the GEMM model alone came within %.0f %% of rank %d's compute",
                       100 * std::abs(g.error()), r);
        }
    }
    return result;
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
        for (int attempt = 1;; ++attempt) {
            const Attempt result = probeRunAndCompare(dir, attempt);
            if (result.misses.isEmpty())
                return;
            // A probe after the runs that predicts otherwise than the one before saw this
            // machine change speed under the runs: the misses say nothing of the model.
            const bool drifted = result.speedChange > kSpeedChange;
            if (!drifted)
                QFAIL(qPrintable(result.misses.join(QStringLiteral("; "))
                                 + QStringLiteral(" (the probes before and after the runs "
                                                  "differ by %1 %)")
                                       .arg(100 * result.speedChange, 0, 'f', 0)));
            if (attempt == kAttempts)
                QSKIP(qPrintable(QStringLiteral("this machine's speed changed by more than %1 % "
                                                "during each of %2 attempts; the last missed: ")
                                     .arg(100 * kSpeedChange)
                                     .arg(kAttempts)
                                 + result.misses.join(QStringLiteral("; "))));
            qInfo("this machine's speed changed by %.0f %% during the runs; once more",
                  100 * result.speedChange);
        }
    }
};

HETPLAN_TEST_GUILESS_MAIN(TestComputeModelRun)
#include "tst_compute_model_run.moc"
