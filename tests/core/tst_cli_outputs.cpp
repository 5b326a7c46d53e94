// No output option of the CLI ever overwrites what the command reads (docs/formats.md, "Rules
// every reader follows"): each is checked before any work starts, against every other option's
// value, the positional inputs and the files of a positional folder, and a loop of links is
// refused instead of replaced.
#include "tests/core/cli_runner.h"
#include "tests/test_registry.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <unistd.h>

namespace {

using hetplan::test::cli;
using Run = hetplan::test::CliRun;

QByteArray contentOf(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QString copyOf(const QString &from, const QString &to)
{
    QFile::remove(to);
    if (!QFile::copy(from, to))
        qFatal("cannot copy %s", qPrintable(from));
    return to;
}

// A file import reads: an nvidia-smi topo -m sample.
QString importSample()
{
    return QStringLiteral(HETPLAN_SOURCE_DIR "/tests/data/topo/nvlink-4gpu-2nic.txt");
}

} // namespace

class TestCliOutputs : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void importReportOntoItsInputIsRefused()
    {
        QTemporaryDir dir;
        const QString input = copyOf(importSample(), dir.filePath(QStringLiteral("in.topo.txt")));
        const QByteArray before = contentOf(input);
        const Run run = cli({"import"},
                            {input, QStringLiteral("--out"), dir.filePath(QStringLiteral("c.json")),
                             QStringLiteral("--report"), input});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("--report") && run.err.contains("in.topo.txt"),
                 run.err.constData());
        QCOMPARE(contentOf(input), before);
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("c.json"))));
    }

    void twoOutputsOnOneFileAreRefused()
    {
        QTemporaryDir dir;
        const QString same = dir.filePath(QStringLiteral("same.txt"));
        const Run run = cli({"import"}, {importSample(), QStringLiteral("--out"), same,
                                         QStringLiteral("--report"), same});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("same.txt") && run.err.contains("--report file"),
                 run.err.constData());
        QVERIFY(!QFile::exists(same));
    }

    void anOutputInsideAnInputFolderIsRefused()
    {
        QTemporaryDir dir;
        copyOf(importSample(), dir.filePath(QStringLiteral("node-a.topo.txt")));
        const QString report = dir.filePath(QStringLiteral("report.txt"));
        const Run run = cli({"import"}, {dir.path(), QStringLiteral("--out"),
                                         dir.filePath(QStringLiteral("../c.json")),
                                         QStringLiteral("--report"), report});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("a folder this command reads"), run.err.constData());
    }

    void aLoopOfLinksIsRefusedAndKept()
    {
        QTemporaryDir dir;
        const QString a = dir.filePath(QStringLiteral("loop-a"));
        const QString b = dir.filePath(QStringLiteral("loop-b"));
        QCOMPARE(::symlink("loop-b", a.toLocal8Bit().constData()), 0);
        QCOMPARE(::symlink("loop-a", b.toLocal8Bit().constData()), 0);
        const Run run = cli({"import"}, {importSample(), QStringLiteral("--out"), a});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("loop of symbolic links"), run.err.constData());
        QCOMPARE(QFile::symLinkTarget(a), b);
    }

    // run, calibrate, launch, probe: the output is checked before the job starts, and never
    // names an input.
    void outputsAreCheckedBeforeTheWork_data()
    {
        QTest::addColumn<QStringList>("words");
        QTest::addColumn<QString>("mentions");
        const QString plan
            = QStringLiteral(HETPLAN_SOURCE_DIR "/tests/runtime/data/one-stage.plan.json");
        const QString model
            = QStringLiteral(HETPLAN_SOURCE_DIR "/tests/runtime/data/tiny.model.json");
        QTest::newRow("run --out in a missing folder")
            << QStringList{QStringLiteral("run"),
                           QStringLiteral("--plan"),
                           plan,
                           QStringLiteral("--model"),
                           model,
                           QStringLiteral("--out"),
                           QStringLiteral("/nonexistent-folder/m.json")}
            << QStringLiteral("does not exist");
        QTest::newRow("run --out onto its model") << QStringList{QStringLiteral("run"),
                                                                 QStringLiteral("--plan"),
                                                                 plan,
                                                                 QStringLiteral("--model"),
                                                                 model,
                                                                 QStringLiteral("--out"),
                                                                 model}
                                                  << QStringLiteral("--model");
        QTest::newRow("calibrate --out onto its cluster")
            << QStringList{QStringLiteral("calibrate"),
                           QStringLiteral("--cluster"),
                           plan,
                           QStringLiteral("--measured"),
                           model,
                           QStringLiteral("--out"),
                           plan}
            << QStringLiteral("--cluster");
        // launch and probe --hosts: before any host is contacted.
        const QString hosts
            = QStringLiteral(HETPLAN_SOURCE_DIR "/tests/fuzz/corpus/hosts/minimal.json");
        QTest::newRow("launch --out a folder") << QStringList{QStringLiteral("launch"),
                                                              QStringLiteral("--plan"),
                                                              plan,
                                                              QStringLiteral("--model"),
                                                              model,
                                                              QStringLiteral("--hosts"),
                                                              hosts,
                                                              QStringLiteral("--out"),
                                                              QStringLiteral("/")}
                                               << QStringLiteral("--out: /: is a folder");
        QTest::newRow("probe --out in a missing folder")
            << QStringList{QStringLiteral("probe"), QStringLiteral("--hosts"), hosts,
                           QStringLiteral("--out"), QStringLiteral("/nonexistent-folder/p.json")}
            << QStringLiteral("does not exist");
    }
    void outputsAreCheckedBeforeTheWork()
    {
        QFETCH(QStringList, words);
        QFETCH(QString, mentions);
        const QByteArray before = contentOf(words.last());
        const Run run = cli(words);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(mentions.toUtf8()), run.err.constData());
        QVERIFY2(!run.out.contains("ranks"), run.out.constData()); // no job started
        QCOMPARE(contentOf(words.last()), before);
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestCliOutputs)
#include "tst_cli_outputs.moc"
