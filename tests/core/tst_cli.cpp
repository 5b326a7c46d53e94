// The CLI is a contract that scripts rely on: exit codes, JSON fields, error messages.
#include "tests/core/cli_runner.h"
#include "tests/test_registry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

namespace {

using Run = hetplan::test::CliRun;
using hetplan::test::cli;

QString writeFile(const QTemporaryDir &dir, const QString &name, const QByteArray &content)
{
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(content);
    return path;
}

} // namespace

class TestCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void planCaseStudyPrintsPlan()
    {
        const Run run = cli({QStringLiteral("plan"), QStringLiteral("--cluster"),
                             QStringLiteral("case-study"), QStringLiteral("--model"),
                             QStringLiteral("llama2-13b"), QStringLiteral("--cost-model"),
                             QStringLiteral("hexiscale-paper")});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains("Pipeline 0"), run.out.constData());
        QVERIFY(run.out.contains("Breakdown"));
        QVERIFY(run.out.contains("A:0"));
    }

    void planThenEvaluateAgree()
    {
        QTemporaryDir dir;
        const QString planPath = dir.filePath(QStringLiteral("plan.json"));
        const Run planned = cli({QStringLiteral("plan"), QStringLiteral("--cluster"),
                                 QStringLiteral("case-study"), QStringLiteral("--model"),
                                 QStringLiteral("llama2-13b"), QStringLiteral("--cost-model"),
                                 QStringLiteral("hexiscale-paper"), QStringLiteral("--out"),
                                 planPath, QStringLiteral("--json")});
        QCOMPARE(planned.exitCode, 0);
        const QJsonObject planJson = QJsonDocument::fromJson(planned.out).object();
        const double plannedS = planJson[QStringLiteral("estimate")]
                                    .toObject()[QStringLiteral("iteration_s")]
                                    .toDouble();
        QVERIFY(plannedS > 0);

        const Run evaluated = cli({QStringLiteral("evaluate"), QStringLiteral("--plan"), planPath,
                                   QStringLiteral("--cost-model"),
                                   QStringLiteral("hexiscale-paper"), QStringLiteral("--json")});
        QCOMPARE(evaluated.exitCode, 0);
        const QJsonObject e = QJsonDocument::fromJson(evaluated.out).object();
        for (const char *field :
             {"iteration_s", "mfu", "tokens_per_s", "breakdown_s", "memory", "valid", "errors"})
            QVERIFY2(e.contains(QLatin1String(field)), field);
        QCOMPARE(e[QStringLiteral("valid")].toBool(), true);
        QVERIFY(qAbs(e[QStringLiteral("iteration_s")].toDouble() - plannedS) <= 1e-9 * plannedS);
        const QJsonObject b = e[QStringLiteral("breakdown_s")].toObject();
        double sum = 0;
        for (const char *part : {"compute", "tp_comm", "pp_comm", "dp_comm", "bubble"})
            sum += b[QLatin1String(part)].toDouble();
        QVERIFY(qAbs(sum - plannedS) <= 1e-6 * plannedS);
        QCOMPARE(e[QStringLiteral("memory")].toArray().size(), 8);
    }

    void badInputExitsTwoNamingTheFile_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("truncated") << QByteArray(R"({"format": "hetplan.cluster/1", "machines": [)")
                                   << QStringLiteral("bad.json");
        QTest::newRow("negative bandwidth") << QByteArray(
            R"({"format":"hetplan.cluster/1","name":"x","machines":[{"name":"A","gpu":"A100-80G","count":2},{"name":"B","gpu":"A100-80G","count":2}],"links":[{"a":"A","b":"B","kind":"ethernet","bandwidth_GBps":-1,"latency_us":5}]})")
                                            << QStringLiteral("bandwidth_GBps");
        QTest::newRow("a billion GPUs") << QByteArray(
            R"({"format":"hetplan.cluster/1","name":"x","machines":[{"name":"A","gpu":"A100-80G","count":1000000000}]})")
                                        << QStringLiteral("count");
        QTest::newRow("unknown GPU type") << QByteArray(
            R"({"format":"hetplan.cluster/1","name":"x","machines":[{"name":"A","gpu":"Z9000","count":2}]})")
                                          << QStringLiteral("Z9000");
    }

    void badInputExitsTwoNamingTheFile()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, mentions);
        QTemporaryDir dir;
        const QString path = writeFile(dir, QStringLiteral("bad.json"), content);
        const Run run = cli({QStringLiteral("plan"), QStringLiteral("--cluster"), path,
                             QStringLiteral("--model"), QStringLiteral("llama2-7b")});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(QString::fromUtf8(run.err).contains(mentions), run.err.constData());
    }

    void invalidPlanExitsTwoWithErrorsInJson()
    {
        QTemporaryDir dir;
        // Stage 1 skips layers 20..23: a gap the validator must name.
        const QString path = writeFile(dir, QStringLiteral("gap.plan.json"), R"({
          "format": "hetplan.plan/1", "planner": "hand", "cost_model": "hexiscale-paper",
          "cluster": "case-study", "model": "llama2-13b",
          "workload": {"mode": "train", "global_batch": 24, "micro_batch": 1, "seq_len": 4096},
          "pipelines": [{"micro_batch": 1, "micro_batches": 24, "stages": [
            {"gpus": ["A:0", "A:1"], "tp": 2, "dp": 1, "layers": [0, 20]},
            {"gpus": ["A:2"], "tp": 1, "dp": 1, "layers": [24, 40]}]}]})");
        const Run run = cli(
            {QStringLiteral("evaluate"), QStringLiteral("--plan"), path, QStringLiteral("--json")});
        QCOMPARE(run.exitCode, 2);
        const QJsonObject e = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(e[QStringLiteral("valid")].toBool(), false);
        QVERIFY(!e[QStringLiteral("errors")].toArray().isEmpty());
        QVERIFY2(run.err.contains("pipeline 0"), run.err.constData());
    }

    void noPlanFitsExitsThree()
    {
        // Llama-2 70B with full Adam state cannot fit on eight 24-40 GB GPUs in any symmetric plan.
        const Run run = cli({QStringLiteral("plan"), QStringLiteral("--cluster"),
                             QStringLiteral("case-study"), QStringLiteral("--model"),
                             QStringLiteral("llama2-70b"), QStringLiteral("--planner"),
                             QStringLiteral("megatron")});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains("GiB"), run.err.constData());
    }

    void unknownOptionsAndNamesAreRefused_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("unknown option")
            << QStringList{QStringLiteral("plan"), QStringLiteral("--frobnicate"),
                           QStringLiteral("1")}
            << QStringLiteral("--frobnicate");
        QTest::newRow("unknown model")
            << QStringList{QStringLiteral("plan"), QStringLiteral("--cluster"),
                           QStringLiteral("case-study"), QStringLiteral("--model"),
                           QStringLiteral("gpt-17")}
            << QStringLiteral("gpt-17");
        QTest::newRow("unknown cost model") << QStringList{
            QStringLiteral("plan"),    QStringLiteral("--cluster"), QStringLiteral("case-study"),
            QStringLiteral("--model"), QStringLiteral("llama2-7b"), QStringLiteral("--cost-model"),
            QStringLiteral("magic")} << QStringLiteral("hexiscale-paper");
        QTest::newRow("bad number")
            << QStringList{QStringLiteral("plan"),       QStringLiteral("--cluster"),
                           QStringLiteral("case-study"), QStringLiteral("--model"),
                           QStringLiteral("llama2-7b"),  QStringLiteral("--global-batch"),
                           QStringLiteral("lots")}
            << QStringLiteral("--global-batch");
    }

    void unknownOptionsAndNamesAreRefused()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, mentions);
        const Run run = cli(arguments);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(QString::fromUtf8(run.err).contains(mentions), run.err.constData());
    }

    void catalogListsWhatTheIssueNames()
    {
        const Run gpus = cli({QStringLiteral("catalog"), QStringLiteral("gpus")});
        QCOMPARE(gpus.exitCode, 0);
        for (const char *gpu : {"A100-80G", "H100", "RTX4090", "RTX3090", "T4", "V100"})
            QVERIFY2(gpus.out.contains(gpu), gpu);
        const Run examples = cli({QStringLiteral("catalog"), QStringLiteral("examples")});
        for (const char *name :
             {"case-study", "hetero-setting-1", "hetero-setting-2", "hetero-setting-3",
              "large-cluster", "hexgen-full-price", "hexgen-half-price", "holmes-hybrid"})
            QVERIFY2(examples.out.contains(name), name);
    }

    void sweepReportsEveryBandwidth()
    {
        const Run run = cli({QStringLiteral("sweep"), QStringLiteral("--cluster"),
                             QStringLiteral("case-study"), QStringLiteral("--model"),
                             QStringLiteral("llama2-13b"), QStringLiteral("--cost-model"),
                             QStringLiteral("hexiscale-paper"), QStringLiteral("--inter"),
                             QStringLiteral("--bandwidth"), QStringLiteral("0.5,1,5"),
                             QStringLiteral("--json")});
        QCOMPARE(run.exitCode, 0);
        const QJsonArray points
            = QJsonDocument::fromJson(run.out).object()[QStringLiteral("points")].toArray();
        QCOMPARE(points.size(), 3);
        // More bandwidth never makes the same plan slower.
        QVERIFY(points[0].toObject()[QStringLiteral("current_plan_s")].toDouble()
                >= points[2].toObject()[QStringLiteral("current_plan_s")].toDouble());
    }
};

HETPLAN_TEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
