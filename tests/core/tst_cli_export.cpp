// `hetplan-cli export`: its files for a person's cluster and the errors a person sees
// (docs/export.md).
#include "tests/core/cli_runner.h"
#include "tests/test_registry.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

using hetplan::test::cli;

const QString kTwoPipelines
    = QStringLiteral(HETPLAN_TEST_DATA_DIR "/good/case-study-2pp.plan.json");
const QString kServing = QStringLiteral(
    HETPLAN_SOURCE_DIR "/resources/examples/hexgen-full-price-appendix-f.plan.json");

QByteArray contentOf(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("<missing>");
}

QString writeFile(const QTemporaryDir &dir, const char *name, const QByteArray &text)
{
    QFile file(dir.filePath(QLatin1String(name)));
    file.open(QIODevice::WriteOnly);
    file.write(text);
    return file.fileName();
}

} // namespace

class TestCliExport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void wrongInputGetsAClearError_data();
    void wrongInputGetsAClearError();
    void slurmScriptUsesTheHostsFile();
    void ranksAreWrittenToOut();
};

void TestCliExport::wrongInputGetsAClearError_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    QTest::newRow("no plan") << QStringList{QStringLiteral("--format"), QStringLiteral("ranks")}
                             << "--plan is required";
    QTest::newRow("missing plan file")
        << QStringList{QStringLiteral("--plan"), QStringLiteral("no-such-plan.json"),
                       QStringLiteral("--format"), QStringLiteral("ranks")}
        << "no-such-plan.json: no such file";
    QTest::newRow("unknown format")
        << QStringList{QStringLiteral("--plan"), kTwoPipelines, QStringLiteral("--format"),
                       QStringLiteral("yaml")}
        << "--format yaml: valid: flashflex, hexgen, ranks";
    QTest::newRow("no target") << QStringList{QStringLiteral("--plan"), kTwoPipelines}
                               << "give --format flashflex|hexgen|ranks, or --slurm";
    QTest::newRow("serving plan to FlashFlex")
        << QStringList{QStringLiteral("--plan"), kServing, QStringLiteral("--format"),
                       QStringLiteral("flashflex")}
        << kServing + QStringLiteral(": this is a serving plan: FlashFlex trains");
    QTest::newRow("DP inside a stage to FlashFlex")
        << QStringList{QStringLiteral("--plan"), kTwoPipelines, QStringLiteral("--format"),
                       QStringLiteral("flashflex")}
        << kTwoPipelines + QStringLiteral(": pipeline 0 stage 1 has dp 2");
    QTest::newRow("command without slurm")
        << QStringList{QStringLiteral("--plan"),    kTwoPipelines,
                       QStringLiteral("--format"),  QStringLiteral("ranks"),
                       QStringLiteral("--command"), QStringLiteral("x")}
        << "--command goes with --slurm";
    QTest::newRow("pipeline without hexgen")
        << QStringList{QStringLiteral("--plan"),     kTwoPipelines,
                       QStringLiteral("--format"),   QStringLiteral("ranks"),
                       QStringLiteral("--pipeline"), QStringLiteral("0")}
        << "--pipeline goes with --format hexgen";
}

void TestCliExport::wrongInputGetsAClearError()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    const auto run = cli(QStringList{QStringLiteral("export")} + arguments);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(message.toUtf8()), run.err.constData());
    QVERIFY(run.out.isEmpty());
}

void TestCliExport::slurmScriptUsesTheHostsFile()
{
    QTemporaryDir dir;
    const QString hosts = writeFile(dir, "hosts.json", R"({"format": "hetplan.hosts/1", "hosts": [
        {"machine": "A", "host": "node-a", "workdir": "/w"},
        {"machine": "B", "host": "node-b", "workdir": "/w"},
        {"machine": "C", "host": "node-c", "workdir": "/w", "worker": "/opt/hp/hetplan-worker"}]})");
    const QString out = dir.filePath(QStringLiteral("job.sh"));
    const auto run = cli({"export", "--slurm", "--plan"},
                         {kTwoPipelines, QStringLiteral("--hosts"), hosts, QStringLiteral("--out"),
                          out, QStringLiteral("--command"), QStringLiteral("python train.py")});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QByteArray script = contentOf(out);
    QVERIFY(script.contains("#SBATCH --nodelist=node-a\n"));
    QVERIFY(script.contains("#SBATCH --nodelist=node-c,node-b\n"));
    QVERIFY(script.contains("export MASTER_ADDR=node-a "));
    QVERIFY(script.contains("\npython train.py\n"));
    // Without --command: each node's hetplan-worker is the one its hosts entry names.
    const auto worker
        = cli({"export", "--slurm", "--plan"}, {kTwoPipelines, QStringLiteral("--hosts"), hosts});
    QVERIFY(worker.out.contains("    node-c) ranks=(2 3) worker='/opt/hp/hetplan-worker' ;;\n"));
    QVERIFY(worker.out.contains("    node-b) ranks=(5 6) worker='hetplan-worker' ;;\n"));
    QProcess bash;
    bash.start(QStringLiteral("bash"), {QStringLiteral("-n"), out});
    QVERIFY(bash.waitForFinished());
    QCOMPARE(bash.exitCode(), 0);

    // A machine of the plan without a host: named, with the entry to add.
    const QString partial = writeFile(dir, "partial.json", R"({"format": "hetplan.hosts/1",
        "hosts": [{"machine": "A", "host": "node-a", "workdir": "/w"}]})");
    const auto missing
        = cli({"export", "--slurm", "--plan"}, {kTwoPipelines, QStringLiteral("--hosts"), partial});
    QCOMPARE(missing.exitCode, 2);
    // --out never overwrites an input, the hosts file included.
    const auto overwrite
        = cli({"export", "--slurm", "--plan"},
              {kTwoPipelines, QStringLiteral("--hosts"), hosts, QStringLiteral("--out"), hosts});
    QCOMPARE(overwrite.exitCode, 2);
    QVERIFY2(overwrite.err.contains("is the --hosts file of this command"),
             overwrite.err.constData());
    QVERIFY(contentOf(hosts).contains("node-a"));
    QVERIFY2(missing.err.contains(partial.toUtf8()
                                  + ": hosts: no entry for machine 'C', which holds rank 2"),
             missing.err.constData());
}

void TestCliExport::ranksAreWrittenToOut()
{
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("ranks.json"));
    const auto run = cli({"export", "--format", "ranks", "--plan"},
                         {kTwoPipelines, QStringLiteral("--out"), out});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject ranks = QJsonDocument::fromJson(contentOf(out)).object();
    QCOMPARE(ranks[QStringLiteral("world_size")].toInt(), 7);
    QCOMPARE(ranks[QStringLiteral("ranks")].toArray().size(), 7);
    QCOMPARE(ranks[QStringLiteral("master_addr")].toString(), QStringLiteral("A"));
}

HETPLAN_TEST_APPLESS_MAIN(TestCliExport)
#include "tst_cli_export.moc"
