// Per-rank phases of a real run (docs/runtime.md, "Phases per rank"): `run` over Gloo records
// each rank's hops in and out per neighbour, and `evaluate --measured` predicts every rank's
// phases under the same keys, so each measured row sits beside a prediction of the same thing.
#include "run_test_support.h"
#include "tests/test_registry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <set>
#include <string_view>

using namespace hetplan::runtime::test;

namespace {

// A row's key as "p0 s1 r3 hop_in_prev".
QString keyOf(const QJsonObject &row)
{
    return row.value(QStringLiteral("what")).toString();
}

} // namespace

class TestRankPhasesRun : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyRankIsPredictedUnderItsKeys()
    {
        // Two pipelines: a TP 2 stage then a TP 1 one, and three TP 1 stages (the middle one
        // has neighbours on both sides).
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString plan = runtimeData("asymmetric.plan.json");
        const QString model = runtimeData("tiny.model.json");
        const QString out = dir.filePath(QStringLiteral("measurement.json"));
        const CliRun run = runCli({QStringLiteral("run"), QStringLiteral("--plan"), plan,
                                   QStringLiteral("--model"), model, QStringLiteral("--iterations"),
                                   QStringLiteral("2"), QStringLiteral("--out"), out});
        QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));

        const CliRun evaluate = runCli(
            {QStringLiteral("evaluate"), QStringLiteral("--plan"), plan, QStringLiteral("--model"),
             model, QStringLiteral("--measured"), out, QStringLiteral("--json")});
        QVERIFY2(evaluate.exitCode == 0, qPrintable(evaluate.err));
        const QJsonArray rows = QJsonDocument::fromJson(evaluate.out.toUtf8())
                                    .object()
                                    .value(QStringLiteral("measured"))
                                    .toArray();
        std::map<QString, QJsonObject> byKey;
        std::set<int> ranks;
        for (const QJsonValue &value : rows) {
            const QJsonObject row = value.toObject();
            QVERIFY2(row.contains(QStringLiteral("predicted_s")), qPrintable(keyOf(row)));
            byKey[keyOf(row)] = row;
            if (row.contains(QStringLiteral("rank")))
                ranks.insert(row.value(QStringLiteral("rank")).toInt());
        }
        QCOMPARE(int(ranks.size()), 6); // ranks 0-1 (TP 2), 2; then 3, 4, 5

        const auto row = [&](const char *key) {
            const auto it = byKey.find(QString::fromLatin1(key));
            if (it == byKey.end())
                qFatal("no row %s", key);
            return it->second;
        };
        const auto predicted = [&](const char *key) {
            return row(key).value(QStringLiteral("predicted_s")).toDouble();
        };
        const auto measured = [&](const char *key) {
            return row(key).value(QStringLiteral("measured_s")).toDouble();
        };
        // Every rank has all five phases, with a prediction of its compute.
        for (const QString &key : {QStringLiteral("p0 s0 r0 "), QStringLiteral("p1 s2 r5 ")})
            for (const char *phase : {"compute", "tp_comm", "pp_comm", "dp_comm", "bubble"})
                QVERIFY2(byKey.count(key + QLatin1String(phase)) == 1,
                         qPrintable(key + QLatin1String(phase)));
        QVERIFY(predicted("p0 s0 r0 compute") > 0);

        // The middle stage of the second pipeline hops both ways with both neighbours, and both
        // sides see each hop. Over its two micro-batches every gradient it sends back goes
        // alone, and a Gloo send returns once its payload is in the socket: predicted 0, the
        // hand-off measured (docs/runtime.md, "Phases per rank"); every other hop waits for a
        // receive.
        for (const char *hop : {"p1 s1 r4 hop_in_prev", "p1 s1 r4 hop_out_prev",
                                "p1 s1 r4 hop_in_next", "p1 s1 r4 hop_out_next"}) {
            QVERIFY2(std::string_view(hop).ends_with("out_prev") ? predicted(hop) == 0
                                                                 : predicted(hop) > 0,
                     hop);
            QVERIFY2(measured(hop) > 0, hop);
            qInfo("%s: predicted %.3g ms, measured %.3g ms", hop, predicted(hop) * 1e3,
                  measured(hop) * 1e3);
        }
        // The last stage exchanges too: it was predicted 0 while the run timed its exchanges.
        QVERIFY(predicted("p1 s2 r5 pp_comm") > 0);
        QVERIFY(measured("p1 s2 r5 pp_comm") > 0);
        QVERIFY(byKey.count(QStringLiteral("p1 s2 r5 hop_out_next")) == 0); // no next stage
        // The TP 2 stage's second rank receives its leader's broadcast and sends nothing.
        QVERIFY(measured("p0 s0 r1 hop_in_next") > 0);
        QVERIFY(byKey.count(QStringLiteral("p0 s0 r1 hop_out_next")) == 0);
        QVERIFY(predicted("p0 s0 r0 hop_out_next") > 0);
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestRankPhasesRun)
#include "tst_rank_phases_run.moc"
