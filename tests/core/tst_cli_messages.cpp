// What the CLI says when the input is wrong or surprising: exit codes, the field named, and
// the workload actually used.
#include "tests/core/cli_runner.h"
#include "tests/test_registry.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

namespace {

using hetplan::test::cli;
using Run = hetplan::test::CliRun;

QString writeFile(const QTemporaryDir &dir, const char *name, const QByteArray &content)
{
    const QString path = dir.filePath(QString::fromUtf8(name));
    QFile file(path);
    if (file.open(QIODevice::WriteOnly))
        file.write(content);
    return path;
}

QString example(const char *file)
{
    return QStringLiteral(HETPLAN_SOURCE_DIR "/resources/examples/") + QString::fromUtf8(file);
}

} // namespace

class TestCliMessages : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void knobsAreValidated_data()
    {
        QTest::addColumn<QString>("knob");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("1e12 iterations")
            << QStringLiteral("iterations=1e12") << QStringLiteral("[1, 100000]");
        QTest::newRow("2e9 iterations")
            << QStringLiteral("iterations=2e9") << QStringLiteral("[1, 100000]");
        QTest::newRow("negative") << QStringLiteral("iterations=-5")
                                  << QStringLiteral("[1, 100000]");
        QTest::newRow("fraction") << QStringLiteral("tau=1.5") << QStringLiteral("whole number");
        QTest::newRow("typo") << QStringLiteral("itterations=3") << QStringLiteral("iterations, ");
        QTest::newRow("other planner's")
            << QStringLiteral("alpha=1.1") << QStringLiteral("parameter of holmes");
    }

    void knobsAreValidated()
    {
        QFETCH(QString, knob);
        QFETCH(QString, mentions);
        const Run run
            = cli({"plan", "--cluster", "case-study", "--model", "llama2-13b", "--knob"}, {knob});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(QString::fromUtf8(run.err).contains(mentions), run.err.constData());
    }

    void compareKnobsGoToThePlannersThatTakeThem()
    {
        const Run run
            = cli({"compare", "--cluster", "case-study", "--model", "llama2-13b", "--planners",
                   "metis,holmes", "--knob", "alpha=1.1,variance=0.4", "--json"});
        QCOMPARE(run.exitCode, 0);
        const Run unknown = cli({"compare", "--cluster", "case-study", "--model", "llama2-13b",
                                 "--planners", "metis,holmes", "--knob", "tau=3"});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(unknown.err.contains("metis: variance") && unknown.err.contains("holmes: alpha"),
                 unknown.err.constData());
    }

    void helpShowsEveryPlannersDefaults()
    {
        const Run run = cli({"plan", "--help"});
        QCOMPARE(run.exitCode, 0);
        for (const char *text : {"tau=2", "alpha=1.05", "variance=0.5", "generations=200",
                                 "max_plans=10000000", "--time-limit"})
            QVERIFY2(run.out.contains(text), text);
    }

    void everyCommandHasHelp()
    {
        for (const char *command :
             {"plan", "evaluate", "compare", "sweep", "validate", "catalog"}) {
            const Run run = cli({command, "--help"});
            QCOMPARE(run.exitCode, 0);
            QVERIFY2(run.out.startsWith("usage: hetplan-cli " + QByteArray(command)), command);
        }
    }

    void removingEveryGpuIsBadInput()
    {
        // hexgen-full-price has 58 GPUs; list them all.
        const Run list = cli({"catalog", "examples"});
        QCOMPARE(list.exitCode, 0);
        QFile file(example("hexgen-full-price.cluster.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QStringList gpus;
        for (const QJsonValue machine : QJsonDocument::fromJson(file.readAll())
                                            .object()[QStringLiteral("machines")]
                                            .toArray()) {
            const QJsonObject m = machine.toObject();
            for (int g = 0; g < m[QStringLiteral("count")].toInt(1); ++g)
                gpus << m[QStringLiteral("name")].toString() + QLatin1Char(':')
                            + QString::number(g);
        }
        const Run run = cli(
            {"plan", "--cluster", "hexgen-full-price", "--model", "llama2-70b", "--remove-gpus"},
            {gpus.join(QLatin1Char(','))});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("no GPUs left after --remove-gpus"), run.err.constData());
    }

    void wrongPlannerOrOverBudgetIsBadInput()
    {
        const Run hexgen = cli(
            {"plan", "--cluster", "case-study", "--model", "llama2-13b", "--planner", "hexgen"});
        QCOMPARE(hexgen.exitCode, 2);
        QVERIFY2(hexgen.err.contains("use hexiscale"), hexgen.err.constData());
        const Run exhaustive = cli({"plan", "--cluster", "case-study", "--model", "llama2-13b",
                                    "--planner", "exhaustive", "--knob", "max_plans=1"});
        QCOMPARE(exhaustive.exitCode, 2);
        QVERIFY2(exhaustive.err.contains("max_plans"), exhaustive.err.constData());
    }

    void strayArgumentsAreRefused_data()
    {
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("single dash")
            << QStringList{QStringLiteral("-out"), QStringLiteral("p.json")}
            << QStringLiteral("-out");
        QTest::newRow("positional")
            << QStringList{QStringLiteral("p.json")} << QStringLiteral("'p.json'");
    }

    void strayArgumentsAreRefused()
    {
        QFETCH(QStringList, extra);
        QFETCH(QString, mentions);
        const Run run = cli({"plan", "--cluster", "case-study", "--model", "llama2-13b"}, extra);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(QString::fromUtf8(run.err).contains(mentions), run.err.constData());
        QVERIFY2(run.err.contains("--out"), "the valid options are listed");
    }

    void disconnectedClusterIsReportedAsSuch()
    {
        QTemporaryDir dir;
        const QString path = writeFile(dir, "apart.json", R"({"format":"hetplan.cluster/1",
          "name":"apart","machines":[{"name":"A","gpu":"A100-80G","count":4},
          {"name":"B","gpu":"A100-80G","count":4}]})");
        // Without Holmes's plan as a seed: with it, the default planner plans one part.
        const Run run = cli(
            {"plan", "--model", "llama2-13b", "--knob", "holmes_seed=0", "--cluster"}, {path});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains("disconnected") && run.err.contains("{A}; {B}"),
                 run.err.constData());
    }

    void disconnectedPartIsReportedIdle()
    {
        // The default planner plans one part and says why the other stays idle.
        QTemporaryDir dir;
        const QString path = writeFile(dir, "apart.json", R"({"format":"hetplan.cluster/1",
          "name":"apart","machines":[{"name":"A","gpu":"A100-80G","count":4},
          {"name":"B","gpu":"A100-80G","count":4}]})");
        const Run run = cli({"plan", "--model", "llama2-13b", "--cluster"}, {path});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains("Idle GPUs: 4 of 8") && run.out.contains("no link joins them"),
                 run.out.constData());
    }

    void sequenceBeyondTheModelIsBadInput()
    {
        const Run run = cli(
            {"plan", "--cluster", "case-study", "--model", "llama2-13b", "--seq-len", "100000"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("seq_len") && run.err.contains("max_seq_len"),
                 run.err.constData());
    }

    void microBatchLargerThanGlobalNamesBoth()
    {
        const Run run = cli(
            {"plan", "--cluster", "case-study", "--model", "llama2-13b", "--micro-batch", "64"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("micro_batch") && run.err.contains("global_batch"),
                 run.err.constData());
    }

    void implausibleBandwidthIsRefused()
    {
        QTemporaryDir dir;
        const QString path
            = writeFile(dir, "tiny.json", R"({"format":"hetplan.cluster/1","name":"x",
          "machines":[{"name":"A","gpu":"A100-80G","count":2},{"name":"B","gpu":"A100-80G","count":2}],
          "links":[{"a":"A","b":"B","kind":"ethernet","bandwidth_GBps":1e-300,"latency_us":5}]})");
        const Run run = cli({"plan", "--model", "llama2-7b", "--cluster"}, {path});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("bandwidth_GBps") && run.err.contains("at least"),
                 run.err.constData());
    }

    // validate reads every format HetPlan writes or reads, not only the planning ones.
    void validateReadsEveryFormat()
    {
        QTemporaryDir dir;
        const QString hosts = writeFile(dir, "hosts.json", R"({"format": "hetplan.hosts/1",
          "hosts": [{"machine": "A", "host": "10.0.0.5", "workdir": "/scratch/hetplan"}]})");
        const Run good = cli({"validate"}, {hosts});
        QVERIFY2(good.exitCode == 0 && good.out.contains("hosts.json: ok"), good.err.constData());

        const QString badHosts = writeFile(dir, "bad-hosts.json", R"({"format": "hetplan.hosts/1",
          "hosts": [{"machine": "A", "host": "-oProxyCommand=x", "workdir": "/w"}]})");
        const Run bad = cli({"validate"}, {badHosts});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("bad-hosts.json: hosts[0].host"), bad.err.constData());

        const QString probe = writeFile(dir, "p.json", R"({"format": "hetplan.probe/1"})");
        const Run probeRun = cli({"validate"}, {probe});
        QCOMPARE(probeRun.exitCode, 2);
        QVERIFY2(probeRun.err.contains("p.json: ") && !probeRun.err.contains("not a"),
                 probeRun.err.constData());

        const QString unknown = writeFile(dir, "u.json", R"({"format": "hetplan.bogus/1"})");
        const Run unknownRun = cli({"validate"}, {unknown});
        QCOMPARE(unknownRun.exitCode, 2);
        QVERIFY2(unknownRun.err.contains("hetplan.measurement/1")
                     && unknownRun.err.contains("hetplan.hosts/1"),
                 unknownRun.err.constData());
    }

    // A plan's model that cannot be loaded is named as the plan's field.
    void validateNamesThePlansModelField()
    {
        const Run run
            = cli({"validate"},
                  {QStringLiteral(HETPLAN_SOURCE_DIR "/tests/runtime/data/one-stage.plan.json")});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("one-stage.plan.json: model: 'runtime-tiny'"),
                 run.err.constData());
    }

    // A plan path read from a measurement is shown as the measurement's word, not as if the
    // person had named it.
    void calibrateSaysWhereAPlanPathCameFrom()
    {
        QFile sample(
            QStringLiteral(HETPLAN_SOURCE_DIR "/tests/fuzz/corpus/measurement/two-ranks.json"));
        QVERIFY(sample.open(QIODevice::ReadOnly));
        QByteArray text = sample.readAll();
        text.replace("tests/runtime/data/pipeline.plan.json", "/etc/hostname");
        QTemporaryDir dir;
        const QString measured = writeFile(dir, "m.json", text);
        const Run run
            = cli({"calibrate", "--cluster", "case-study", "--out"},
                  {dir.filePath(QStringLiteral("c.json")), QStringLiteral("--measured"), measured});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("m.json: run.plan names /etc/hostname"), run.err.constData());
    }

    // launch names the plan as the person gave it, once, before any host is reached.
    void launchNamesThePlanOnce()
    {
        QTemporaryDir dir;
        QFile sample(QStringLiteral(HETPLAN_SOURCE_DIR "/tests/runtime/data/one-stage.plan.json"));
        QVERIFY(sample.open(QIODevice::ReadOnly));
        QByteArray text = sample.readAll();
        text.replace("\"layers\": [0, 4]", "\"layers\": [0, 9]");
        const QString plan = writeFile(dir, "too-deep.plan.json", text);
        const QString hosts = writeFile(dir, "hosts.json", R"({"format": "hetplan.hosts/1",
          "hosts": [{"machine": "A", "host": "127.0.0.1", "port": 1, "workdir": "/tmp/w"}]})");
        const Run run
            = cli({"launch", "--model"},
                  {QStringLiteral(HETPLAN_SOURCE_DIR "/tests/runtime/data/tiny.model.json"),
                   QStringLiteral("--plan"), plan, QStringLiteral("--hosts"), hosts});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("too-deep.plan.json: pipeline 0, stage 0"), run.err.constData());
        QVERIFY2(!run.err.contains("too-deep.plan.json: too-deep.plan.json"), run.err.constData());
    }

    void duplicateKeysAreRefused()
    {
        QTemporaryDir dir;
        const QString path
            = writeFile(dir, "twice.json", R"({"format":"hetplan.cluster/1","name":"x",
          "machines":[{"name":"A","gpu":"A100-80G","count":2,"count":4}]})");
        const Run run = cli({"plan", "--model", "llama2-7b", "--cluster"}, {path});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("twice.json") && run.err.contains("'count'"),
                 run.err.constData());
    }

    void fifoInputDoesNotBlock()
    {
        QTemporaryDir dir;
        const QString fifo = dir.filePath(QStringLiteral("cluster.fifo"));
        QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
        const Run run = cli({"plan", "--model", "llama2-7b", "--cluster"}, {fifo});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("nothing arrived"), run.err.constData());
    }

    void rangesPrintAsWholeNumbers()
    {
        const Run run
            = cli({"plan", "--cluster", "case-study", "--model", "llama2-13b", "--seq-len", "0"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(!run.err.contains("e+"), run.err.constData());
    }

    void manyInvalidPipelinesPrintACountNotMegabytes()
    {
        // 2,000 single-stage pipelines on one GPU each: every one of them broken the same way.
        QByteArray pipelines;
        for (int p = 0; p < 2000; ++p)
            pipelines
                += QByteArray(p ? "," : "")
                   + R"({"micro_batch":1,"micro_batches":1,"stages":[{"gpus":["A:0"],"tp":1,"dp":1,"layers":[0,5]}]})";
        QTemporaryDir dir;
        const QString path = writeFile(dir, "many.plan.json", R"({"format":"hetplan.plan/1",
          "planner":"hand","cost_model":"hetplan","cluster":"case-study","model":"llama2-13b",
          "workload":{"mode":"train","global_batch":24,"micro_batch":1,"seq_len":4096},
          "pipelines":[)" + pipelines + "]}");
        const Run run = cli({"evaluate", "--plan"}, {path});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("more"), run.err.left(2000).constData());
        QVERIFY2(run.err.size() < 20000, "errors were not capped");
        const Run validated = cli({"validate"}, {path});
        QCOMPARE(validated.exitCode, 2);
        QVERIFY2(validated.err.contains("more"), validated.err.left(2000).constData());
        QVERIFY2(validated.err.size() < 20000, "validate's errors were not capped");
        // --json is for scripts: every problem, and the count that says so.
        const Run json = cli({"evaluate", "--json", "--plan"}, {path});
        QCOMPARE(json.exitCode, 2);
        const QJsonObject report = QJsonDocument::fromJson(json.out).object();
        const int count = report.value(QStringLiteral("error_count")).toInt();
        QVERIFY(count > 20);
        QCOMPARE(report.value(QStringLiteral("errors")).toArray().size(), count);
    }

    void outputSaysWhichWorkloadAndDefaults()
    {
        QTemporaryDir dir;
        const QString copy = dir.filePath(QStringLiteral("copy-of-case-study.json"));
        QVERIFY(QFile::copy(example("case-study.cluster.json"), copy));
        const Run run = cli({"plan", "--model", "llama2-13b", "--cluster"}, {copy});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains("seq_len 2048 (default)"), run.out.constData());
        QVERIFY2(run.out.contains("global_batch 1 (default)"), run.out.constData());
        QVERIFY2(run.out.contains("'case-study' was NOT applied"), run.out.constData());

        const Run bundled = cli({"plan", "--cluster", "case-study", "--model", "llama2-13b",
                                 "--seq-len", "1024", "--json"});
        QCOMPARE(bundled.exitCode, 0);
        const QJsonObject workload
            = QJsonDocument::fromJson(bundled.out).object()[QStringLiteral("workload")].toObject();
        QVERIFY(
            workload[QStringLiteral("source")].toString().contains(QStringLiteral("case-study")));
        QCOMPARE(
            workload[QStringLiteral("fields")].toObject()[QStringLiteral("seq_len")].toString(),
            QStringLiteral("1024"));
        QVERIFY(
            !workload[QStringLiteral("defaults")].toArray().contains(QStringLiteral("seq_len")));
    }

    void evaluateSaysWhichWorkload()
    {
        QTemporaryDir dir;
        const QString planPath = dir.filePath(QStringLiteral("plan.json"));
        QCOMPARE(
            cli({"plan", "--cluster", "case-study", "--model", "llama2-13b", "--out"}, {planPath})
                .exitCode,
            0);
        const Run run = cli({"evaluate", "--plan"}, {planPath});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains("Workload (plan file"), run.out.constData());
    }

    void localFileWinsOverBundledName()
    {
        QTemporaryDir dir;
        QVERIFY(QDir::setCurrent(dir.path()));
        // A local file named like a bundled example, holding a different (smaller) cluster.
        writeFile(dir, "case-study", R"({"format":"hetplan.cluster/1","name":"mine",
          "machines":[{"name":"M","gpu":"A100-80G","count":2}]})");
        const Run run = cli({"plan", "--cluster", "case-study", "--model", "llama2-7b"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains("on mine"), run.out.constData());
        QVERIFY2(run.err.contains("both a local file and a bundled example"), run.err.constData());
    }
};

HETPLAN_TEST_GUILESS_MAIN(TestCliMessages)
#include "tst_cli_messages.moc"
