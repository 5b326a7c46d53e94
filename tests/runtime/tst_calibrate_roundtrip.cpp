// The calibration round trip on this machine's CPU (docs/calibration.md): probe two local ranks,
// import the probe as a cluster, plan on it, run the plan over Gloo, calibrate the cluster
// from the run, and predict the same run again: the calibrated cluster must predict it closer.
#include "run_test_support.h"
#include "tests/test_registry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace hetplan::runtime::test;

namespace {

constexpr int kRanks = 2;

QString inDir(const QTemporaryDir &dir, const char *name)
{
    return dir.path() + QLatin1Char('/') + QString::fromUtf8(name);
}

// hetplan-probe on `kRanks` local ranks meeting in `dir`; rank 0 writes `out`.
bool probe(const QTemporaryDir &dir, const QString &out)
{
    return probeLocalRanks(kRanks, inDir(dir, "rendezvous"),
                           {QStringLiteral("--no-gpu"), QStringLiteral("--quick"),
                            QStringLiteral("--model"), QStringLiteral("gpt3-350m"),
                            QStringLiteral("--out"), out, QStringLiteral("--timeout-s"),
                            QStringLiteral("200")});
}

QJsonObject json(const CliRun &run)
{
    return QJsonDocument::fromJson(run.out.toUtf8()).object();
}

struct Errors
{
    double iteration = 0; // |ln(predicted / measured)| of the iteration time
    double stagesRms = 0; // rms of ln(predicted / measured) over per-stage phase times
};

// `evaluate --measured --json`: the run as it trained, predicted on `cluster`.
Errors predictionErrors(const QString &cluster, const QString &plan, const QString &measured)
{
    const CliRun run = runCli({QStringLiteral("evaluate"), QStringLiteral("--plan"), plan,
                               QStringLiteral("--cluster"), cluster, QStringLiteral("--measured"),
                               measured, QStringLiteral("--json")});
    if (run.exitCode != 0)
        qFatal("evaluate: %s", qPrintable(run.err));
    Errors errors;
    double sum = 0;
    int count = 0;
    for (const QJsonValue &row : json(run).value(QStringLiteral("measured")).toArray()) {
        const QJsonObject r = row.toObject();
        const QString phase = r.value(QStringLiteral("phase")).toString();
        const bool perStage
            = r.contains(QStringLiteral("stage")) && !r.contains(QStringLiteral("rank"));
        const double predicted = r.value(QStringLiteral("predicted_s")).toDouble();
        const double m = r.value(QStringLiteral("measured_s")).toDouble();
        if (phase == QStringLiteral("iteration") && !perStage)
            errors.iteration = std::abs(std::log(predicted / m));
        else if (perStage && phase != QStringLiteral("bubble") && m >= 1e-5 && predicted > 0) {
            sum += std::pow(std::log(predicted / m), 2);
            ++count;
        }
    }
    errors.stagesRms = count > 0 ? std::sqrt(sum / count) : NAN;
    return errors;
}

} // namespace

class TestCalibrateRoundTrip : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void calibratedClusterPredictsTheRunCloser()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(QDir().mkpath(inDir(dir, "rendezvous")));
        const QString probeFile = inDir(dir, "probe.json");
        const QString cluster = inDir(dir, "cluster.json");
        const QString plan = inDir(dir, "plan.json");
        const QString measured = inDir(dir, "run.json");
        const QString calibrated = inDir(dir, "calibrated.json");

        QVERIFY(probe(dir, probeFile));
        const CliRun imported
            = runCli({QStringLiteral("import"), probeFile, QStringLiteral("--out"), cluster});
        QVERIFY2(imported.exitCode == 0, qPrintable(imported.err));
        const CliRun planned = runCli(
            {QStringLiteral("plan"), QStringLiteral("--cluster"), cluster,
             QStringLiteral("--model"), QStringLiteral("gpt3-350m"),
             QStringLiteral("--global-batch"), QStringLiteral("4"), QStringLiteral("--micro-batch"),
             QStringLiteral("1"), QStringLiteral("--seq-len"), QStringLiteral("512"),
             QStringLiteral("--seed"), QStringLiteral("1"), QStringLiteral("--out"), plan});
        QVERIFY2(planned.exitCode == 0, qPrintable(planned.err));
        const CliRun ran = runCli({QStringLiteral("run"), QStringLiteral("--plan"), plan,
                                   QStringLiteral("--cluster"), cluster, QStringLiteral("--scale"),
                                   QStringLiteral("8"), QStringLiteral("--iterations"),
                                   QStringLiteral("3"), QStringLiteral("--out"), measured});
        QVERIFY2(ran.exitCode == 0, qPrintable(ran.err));
        const CliRun fitted
            = runCli({QStringLiteral("calibrate"), QStringLiteral("--cluster"), cluster,
                      QStringLiteral("--measured"), measured, QStringLiteral("--out"), calibrated});
        QVERIFY2(fitted.exitCode == 0, qPrintable(fitted.err));
        qInfo("%s", qPrintable(fitted.out));

        const Errors before = predictionErrors(cluster, plan, measured);
        const Errors after = predictionErrors(calibrated, plan, measured);
        qInfo("prediction of the measured run, |ln(predicted / measured)|: iteration %.3f "
              "uncalibrated, %.3f calibrated; rms over per-stage phase times %.3f uncalibrated, "
              "%.3f calibrated",
              before.iteration, after.iteration, before.stagesRms, after.stagesRms);
        QVERIFY(after.stagesRms < before.stagesRms);
        QVERIFY(after.iteration < before.iteration);
    }
};

HETPLAN_TEST_GUILESS_MAIN(TestCalibrateRoundTrip)
#include "tst_calibrate_roundtrip.moc"
