// `plan --out`: what happens to the file a person names, checked before the search starts.
#include "tests/core/cli_runner.h"
#include "tests/test_programs.h"
#include "tests/test_registry.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>
#include <unistd.h>

namespace {

using hetplan::test::cli;
using Run = hetplan::test::CliRun;

// A quick plan; `out` is where --out points.
Run planTo(const QString &out, const QStringList &more = {})
{
    return cli({"plan", "--cluster", "case-study", "--model", "llama2-13b", "--cost-model",
                "hexiscale-paper", "--out"},
               QStringList{out} + more);
}

QByteArray contentOf(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("<missing>");
}

bool isPlan(const QByteArray &text)
{
    return QJsonDocument::fromJson(text).object()[QStringLiteral("format")].toString()
           == QStringLiteral("hetplan.plan/1");
}

} // namespace

class TestCliOutput : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void symlinkIsWrittenThrough()
    {
        QTemporaryDir dir;
        const QString target = dir.filePath(QStringLiteral("target.json"));
        const QString link = dir.filePath(QStringLiteral("link.json"));
        QFile(target).open(QIODevice::WriteOnly);
        QVERIFY(QFile::link(target, link));
        const Run run = planTo(link);
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(QFileInfo(link).isSymLink(), "the link was replaced by a file");
        QVERIFY(isPlan(contentOf(target)));
    }

    void specialFilesAreWrittenNotReplaced()
    {
        // Only special files this test owns, or links to /dev ones: a regression must never
        // replace a device node of the machine running the tests.
        QTemporaryDir dir;
        const QString fifo = dir.filePath(QStringLiteral("plan.fifo"));
        QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
        QProcess reader;
        reader.start(QStringLiteral("cat"), {fifo});
        QVERIFY(reader.waitForStarted());
        QCOMPARE(planTo(fifo).exitCode, 0);
        QVERIFY(reader.waitForFinished(30000));
        QVERIFY(isPlan(reader.readAllStandardOutput()));
        struct stat after
        {
        };
        QCOMPARE(::stat(fifo.toLocal8Bit().constData(), &after), 0);
        QVERIFY2(S_ISFIFO(after.st_mode), "the FIFO was replaced by a file");

        const QString toNull = dir.filePath(QStringLiteral("null"));
        QVERIFY(QFile::link(QStringLiteral("/dev/null"), toNull));
        QCOMPARE(planTo(toNull).exitCode, 0);
        QVERIFY(QFileInfo(toNull).isSymLink());

        // /dev/full accepts the open and fails the write: that failure is reported.
        const QString toFull = dir.filePath(QStringLiteral("full"));
        QVERIFY(QFile::link(QStringLiteral("/dev/full"), toFull));
        const Run full = planTo(toFull);
        QCOMPARE(full.exitCode, 1);
        QVERIFY2(full.err.contains("/dev/full"), full.err.constData());
        QVERIFY(QFileInfo(toFull).isSymLink());
    }

    void dashMeansStandardOutput()
    {
        QTemporaryDir dir;
        QVERIFY(QDir::setCurrent(dir.path()));
        const Run run = planTo(QStringLiteral("-"));
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(isPlan(run.out), run.out.constData());
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("-"))));
        QVERIFY2(run.err.contains("Pipeline 0"), "the report goes to standard error");
    }

    void inputAndReadOnlyFilesAreRefused()
    {
        QTemporaryDir dir;
        const QString cluster = dir.filePath(QStringLiteral("cluster.json"));
        QVERIFY(QFile::copy(
            QStringLiteral(HETPLAN_SOURCE_DIR "/resources/examples/case-study.cluster.json"),
            cluster));
        const QByteArray original = contentOf(cluster);
        const Run overInput = cli({"plan", "--model", "llama2-13b", "--cluster"},
                                  {cluster, QStringLiteral("--out"), cluster});
        QCOMPARE(overInput.exitCode, 2);
        QVERIFY2(overInput.err.contains("--cluster"), overInput.err.constData());
        QCOMPARE(contentOf(cluster), original);

        const QString readOnly = dir.filePath(QStringLiteral("kept.json"));
        {
            QFile file(readOnly);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("keep me");
        }
        QVERIFY(QFile::setPermissions(readOnly, QFile::ReadOwner | QFile::ReadGroup));
        const Run overReadOnly = planTo(readOnly);
        QCOMPARE(overReadOnly.exitCode, 2);
        QVERIFY2(overReadOnly.err.contains("read-only"), overReadOnly.err.constData());
        QCOMPARE(contentOf(readOnly), QByteArray("keep me"));
    }

    void badPathIsRefusedBeforePlanning()
    {
        QTemporaryDir dir;
        // A search that would run for minutes: the refusal must come first, not after it.
        const QString missing = dir.filePath(QStringLiteral("no-such-folder/plan.json"));
        QElapsedTimer timer;
        timer.start();
        const Run run = cli({"plan", "--cluster", "large-cluster", "--model", "llama2-70b",
                             "--knob", "iterations=100000", "--out"},
                            {missing});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("does not exist"), run.err.constData());
        QVERIFY2(timer.elapsed() < 20000, "the path was checked only after planning");

        const Run folder = planTo(dir.path());
        QCOMPARE(folder.exitCode, 2);
        QVERIFY2(folder.err.contains("folder"), folder.err.constData());
    }

    void failedWriteToStandardOutputIsAnError()
    {
        QProcess process;
        process.setStandardOutputFile(QStringLiteral("/dev/full"));
        process.start(hetplan::test::projectProgram("hetplan-cli"),
                      {QStringLiteral("catalog"), QStringLiteral("gpus")});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 1);
        QVERIFY(process.readAllStandardError().contains("standard output"));
    }
};

HETPLAN_TEST_GUILESS_MAIN(TestCliOutput)
#include "tst_cli_output.moc"
