// A serving load test (docs/runtime.md, "Serving runs"): `hetplan-cli run` of a two-replica plan
// (one stage, and two stages) under seeded Poisson arrivals serves every request, writes
// serving-measurement.json, `validate` accepts it, and the comparison with the serving simulator
// for the same requests prints with a row per replica, as `evaluate --measured` does. Figures are
// checked for being finite and positive, not against a tolerance: the build machine is shared.
#include "core/io/serving_measurement_json.h"
#include "run_test_support.h"
#include "tests/test_registry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace hetplan;
using namespace hetplan::runtime::test;

namespace {

constexpr int kRequests = 24;

bool finitePositive(double value)
{
    return std::isfinite(value) && value > 0;
}

// A comparison entry of `evaluate --json`: simulated and measured both finite and positive.
void verifyBeside(const QJsonObject &entry, const char *name)
{
    const QJsonObject figure = entry.value(QLatin1String(name)).toObject();
    QVERIFY2(finitePositive(figure.value(QStringLiteral("simulated")).toDouble(-1)), name);
    QVERIFY2(finitePositive(figure.value(QStringLiteral("measured")).toDouble(-1)), name);
}

} // namespace

class TestServeLoad : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void poissonLoadIsMeasuredAndCompared()
    {
        QTemporaryDir out;
        const QString plan = runtimeData("serving.plan.json");
        const QString model = runtimeData("tiny.model.json");
        const CliRun run
            = runCli({QStringLiteral("run"), QStringLiteral("--plan"), plan,
                      QStringLiteral("--model"), model, QStringLiteral("--requests"),
                      QString::number(kRequests), QStringLiteral("--rate"), QStringLiteral("200"),
                      QStringLiteral("--seed"), QStringLiteral("5"), QStringLiteral("--timeout-s"),
                      QStringLiteral("20"), QStringLiteral("--out"), out.path()});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains(
                     QStringLiteral("served %1 of %1 requests on 2 replicas").arg(kRequests)),
                 qPrintable(run.out));
        for (const char *row : {"replica 0 prefill", "replica 1 prefill", "replica 0 per token",
                                "replica 1 per token", "latency p50", "SLO attainment"})
            QVERIFY2(run.out.contains(QLatin1String(row)), qPrintable(run.out));

        const QString file = out.filePath(QStringLiteral("serving-measurement.json"));
        const CliRun valid = runCli({QStringLiteral("validate"), file});
        QVERIFY2(valid.exitCode == 0, qPrintable(valid.out + valid.err));

        // Every request accounted for, on the replica the dispatcher gave it, completed.
        const auto loaded = loadServingMeasurement(file.toStdString());
        QVERIFY2(loaded, loaded ? "" : loaded.error().message.c_str());
        const ServingMeasurement &m = *loaded;
        QCOMPARE(m.run.seed, std::uint64_t(5));
        QCOMPARE(m.run.requestRatePerS, 200.0);
        QVERIFY(finitePositive(m.run.sloS));
        QCOMPARE(int(m.requests.size()), kRequests);
        QCOMPARE(m.summary.completed, kRequests);
        QCOMPARE(int(m.replicas.size()), 2);
        for (int i = 0; i < kRequests; ++i) {
            QCOMPARE(m.requests[std::size_t(i)].id, i);
            QVERIFY(m.requests[std::size_t(i)].completed);
        }
        QCOMPARE(m.replicas[0].requests + m.replicas[1].requests, kRequests);
        QCOMPARE(m.replicas[1].ranks.size(), std::size_t(2));
        for (const LatencyStats &stats : {m.summary.ttft, m.summary.tpot, m.summary.latency})
            QVERIFY(finitePositive(stats.p50S) && stats.p50S <= stats.p99S);

        // evaluate --measured compares the same run: per replica and overall, both sides
        // finite and positive.
        const CliRun evaluated = runCli(
            {QStringLiteral("evaluate"), QStringLiteral("--plan"), plan, QStringLiteral("--model"),
             model, QStringLiteral("--measured"), file, QStringLiteral("--json")});
        QVERIFY2(evaluated.exitCode == 0, qPrintable(evaluated.err));
        const QJsonObject comparison = QJsonDocument::fromJson(evaluated.out.toUtf8())
                                           .object()
                                           .value(QStringLiteral("serving_comparison"))
                                           .toObject();
        const QJsonArray replicas = comparison.value(QStringLiteral("replicas")).toArray();
        QCOMPARE(replicas.size(), 2);
        for (const QJsonValue &replica : replicas)
            for (const char *name : {"prefill_s", "tpot_s"})
                verifyBeside(replica.toObject(), name);
        for (const char *name : {"latency_p50_s", "latency_p90_s", "latency_p99_s"})
            verifyBeside(comparison, name);
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestServeLoad)
#include "tst_serve_load.moc"
