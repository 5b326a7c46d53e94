// hetplan-cli import: a folder of generated measurements becomes a valid cluster file and a
// report naming each figure's origin; bad input exits 2 naming the file and line, and writes
// nothing.
#include "cli_runner.h"
#include "core/io/formats.h"
#include "import_fixtures.h"
#include "tests/test_registry.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace hetplan;
using namespace hetplan::fixtures;
using hetplan::test::cli;

namespace {

void writeFile(const QString &path, const std::string &text)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text.data(), qint64(text.size()));
}

LogSpec twoHostLog()
{
    LogSpec spec;
    for (const char *host : {"node-a", "node-b"})
        for (int d = 0; d < 2; ++d)
            spec.ranks.push_back({host, d, "NVIDIA A100-SXM4-80GB"});
    spec.busBwGBps = 22;
    spec.latencyUs = 8;
    return spec;
}

} // namespace

class TestCliImport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void folderToClusterAndReport()
    {
        QTemporaryDir dir;
        QDir(dir.path()).mkpath(QStringLiteral("logs"));
        writeFile(dir.filePath(QStringLiteral("logs/all_reduce_perf.log")), ncclLog(twoHostLog()));
        writeFile(dir.filePath(QStringLiteral("logs/node-a.topo.txt")),
                  topoMatrix({{"X", "NV12"}, {"NV12", "X"}}));
        writeFile(dir.filePath(QStringLiteral("logs/notes.md")), "measured on Tuesday\n");
        const QString out = dir.filePath(QStringLiteral("cluster.json"));
        const auto run
            = cli({"import"}, {dir.filePath(QStringLiteral("logs")), QStringLiteral("--out"), out,
                               QStringLiteral("--network"), QStringLiteral("infiniband")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QString report = QString::fromUtf8(run.out);
        QVERIFY2(report.contains(QStringLiteral("/links/node-a/node-b/bandwidth_GBps = 22")),
                 qPrintable(report));
        QVERIFY(report.contains(QStringLiteral("all_reduce_perf.log:")));
        QVERIFY(report.contains(QStringLiteral("/machines/node-a/intra/kind = nvlink")));
        QVERIFY(report.contains(QStringLiteral("notes.md: skipped")));
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        auto cluster = parseCluster(file.readAll().toStdString(), "cluster.json");
        QVERIFY2(cluster.ok(), cluster.ok() ? "" : cluster.error().message.c_str());
        QCOMPARE(cluster->machines.size(), std::size_t(2));
        QVERIFY(cluster->links.at(0).kind == LinkKind::InfiniBand);
        QVERIFY(!cluster->origin.figures.empty());
        QCOMPARE(cli({"validate"}, {out}).exitCode, 0);

        // --out -: the cluster alone on standard output, the report on standard error.
        const auto piped = cli({"import", "--out", "-"}, {dir.filePath(QStringLiteral("logs"))});
        QCOMPARE(piped.exitCode, 0);
        QVERIFY(parseCluster(piped.out.toStdString(), "stdout").ok());
        QVERIFY(piped.err.contains("Measured figures"));
    }

    // A file named twice, and again inside a named folder, is read once, and the report says so.
    void sameFileTwiceReadOnce()
    {
        QTemporaryDir dir;
        QDir(dir.path()).mkpath(QStringLiteral("logs"));
        const QString log = dir.filePath(QStringLiteral("logs/all_reduce_perf.log"));
        writeFile(log, ncclLog(twoHostLog()));
        const QString out = dir.filePath(QStringLiteral("cluster.json"));
        const auto run = cli({"import"}, {log, log, dir.filePath(QStringLiteral("logs")),
                                          QStringLiteral("--out"), out});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY2(run.out.contains("the same file as") && run.out.contains("read once"),
                 run.out.constData());
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        auto cluster = parseCluster(file.readAll().toStdString(), "cluster.json");
        QVERIFY(cluster.ok());
        QCOMPARE(cluster->machines.size(), std::size_t(2));
        for (const Machine &m : cluster->machines)
            QCOMPARE(m.count, 2);
        QCOMPARE(cluster->origin.sources.size(), std::size_t(1));
    }

    void badInputWritesNothing()
    {
        QTemporaryDir dir;
        std::string log = ncclLog(twoHostLog());
        log.replace(log.find("  node-b device  0"), 18, "  node-b device 0x");
        const QString logPath = dir.filePath(QStringLiteral("all_reduce_perf.log"));
        writeFile(logPath, log);
        const QString out = dir.filePath(QStringLiteral("cluster.json"));
        const auto run = cli({"import", "--out"}, {out, logPath});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("all_reduce_perf.log: line 9: a rank line must read"),
                 run.err.constData());
        QVERIFY(!QFile::exists(out));
        QCOMPARE(cli({"import"}, {logPath}).exitCode, 2); // no --out
        const auto overwrite = cli({"import", "--out"}, {logPath, logPath});
        QCOMPARE(overwrite.exitCode, 2);
        QVERIFY(overwrite.err.contains("refusing to overwrite an input"));
    }
};

HETPLAN_TEST_GUILESS_MAIN(TestCliImport)
#include "tst_cli_import.moc"
