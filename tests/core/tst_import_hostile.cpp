// Import against inputs a stranger could write, generated here (import_fixtures.h): nccl-tests
// logs of thousands of hosts read in time linear in their size and are refused at the machine
// limit before anything grows; a file of newlines stays small; the same input twice is read
// once; distinct hosts stay distinct machines; probe pairs that name nothing are refused; every
// message names the file and the line or JSON path.
#include "core/import/import.h"
#include "core/import/nccl_tests.h"
#include "core/model/cluster.h"
#include "import_fixtures.h"
#include "tests/test_registry.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <sys/resource.h>

using namespace hetplan;
using namespace hetplan::fixtures;

namespace {

// Loose bounds for two loaded cores; the linear reader needs a small fraction of them
// (`make bench`, case import).
constexpr qint64 kManyHostsMs = 5000;

LogSpec oneRankPerHost(int hosts)
{
    LogSpec spec;
    for (int h = 0; h < hosts; ++h)
        spec.ranks.push_back({"gpu" + std::to_string(h), 0});
    spec.maxBytes = 1 << 24;
    return spec;
}

Result<ImportResult> timedImport(const std::vector<ImportInput> &inputs, qint64 &ms)
{
    QElapsedTimer timer;
    timer.start();
    auto result = importMeasurements(inputs);
    ms = timer.elapsed();
    return result;
}

QString messageOf(const Result<ImportResult> &result)
{
    return result ? QString() : QString::fromStdString(result.error().message);
}

long peakRssKiB()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

std::string twoDevicesOn(const std::vector<std::string> &hosts)
{
    LogSpec spec;
    for (const std::string &host : hosts)
        for (int d = 0; d < 2; ++d)
            spec.ranks.push_back({host, d});
    return ncclLog(spec);
}

std::string probeText(std::vector<ProbedHost> hosts, std::vector<ProbedPair> pairs = {})
{
    return writeProbe(probeOf(std::move(hosts), std::move(pairs)));
}

} // namespace

class TestImportHostile : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // First, so that the peak it measures is its own.
    void fileOfNewlinesStaysSmall()
    {
        const std::string log = ncclLog(oneRankPerHost(2));
        std::string text = log.substr(0, log.find("#       size"));
        text += std::string((16u << 20) - log.size(), '\n');
        text += log.substr(log.find("#       size"));
        const long before = peakRssKiB();
        qint64 ms = 0;
        const auto result = timedImport({{"all_reduce_perf.log", text}}, ms);
        QVERIFY2(result.ok(), qPrintable(messageOf(result)));
        const long grownMiB = (peakRssKiB() - before) / 1024;
        // The lines are visited, not kept: well under one copy of the text per line.
        QVERIFY2(grownMiB < 64, qPrintable(QString::number(grownMiB) + QStringLiteral(" MiB")));
        QVERIFY2(ms < kManyHostsMs, qPrintable(QString::number(ms) + QStringLiteral(" ms")));
    }

    void manyHostsReadInLinearTime_data()
    {
        QTest::addColumn<int>("hosts");
        QTest::newRow("1,000 hosts") << 1000;
        QTest::newRow("2,048 hosts (the limit)") << kMaxMachines;
    }

    void manyHostsReadInLinearTime()
    {
        QFETCH(int, hosts);
        qint64 ms = 0;
        const auto result
            = timedImport({{"all_reduce_perf.log", ncclLog(oneRankPerHost(hosts))}}, ms);
        QVERIFY2(result.ok(), qPrintable(messageOf(result)));
        QCOMPARE(result->cluster.machines.size(), std::size_t(hosts));
        QCOMPARE(result->cluster.links.size(), std::size_t(hosts)); // one each, to the switch
        QVERIFY2(ms < kManyHostsMs, qPrintable(QString::number(ms) + QStringLiteral(" ms")));
    }

    void beyondTheMachineLimitRefused_data()
    {
        QTest::addColumn<int>("hosts");
        QTest::newRow("3,000 hosts") << 3000;
        QTest::newRow("65,535 hosts") << 65535;
    }

    void beyondTheMachineLimitRefused()
    {
        QFETCH(int, hosts);
        qint64 ms = 0;
        const auto result
            = timedImport({{"all_reduce_perf.log", ncclLog(oneRankPerHost(hosts))}}, ms);
        const QString message = messageOf(result);
        QVERIFY(!message.isEmpty());
        QVERIFY2(message.startsWith(QStringLiteral("all_reduce_perf.log:")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("host \"gpu2048\" would be machine 2049; a "
                                                 "cluster holds at most 2048 machines")),
                 qPrintable(message));
        QVERIFY2(ms < kManyHostsMs, qPrintable(QString::number(ms) + QStringLiteral(" ms")));
    }

    void sameInputTwiceReadOnce()
    {
        const std::string probe = probeText({gpuHost("node-a", 0, 4, 600)});
        const auto twice = importMeasurements({{"p.json", probe}, {"copy.json", probe}});
        QVERIFY2(twice.ok(), qPrintable(messageOf(twice)));
        QCOMPARE(twice->cluster.machines.size(), std::size_t(1));
        QCOMPARE(twice->cluster.machines[0].count, 4);
        QVERIFY(std::ranges::any_of(twice->notes, [](const std::string &n) {
            return n == "copy.json: the same content as p.json; read once";
        }));

        // One path twice: the CPU ranks of a probe would be two devices each.
        const std::string cpu = probeText({cpuRank("box#0", 0, 0.1), cpuRank("box#1", 1, 0.1)});
        const auto samePath = importMeasurements({{"f.json", cpu}, {"f.json", cpu}});
        QVERIFY2(samePath.ok(), qPrintable(messageOf(samePath)));
        QCOMPARE(samePath->cluster.machines.size(), std::size_t(1));
        QCOMPARE(samePath->cluster.machines[0].count, 2);
        QVERIFY(std::ranges::any_of(samePath->notes, [](const std::string &n) {
            return n == "f.json: the same file as f.json; read once";
        }));

        // On disk: a file named twice, and a folder together with a file in it.
        QTemporaryDir dir;
        QDir(dir.path()).mkpath(QStringLiteral("m"));
        const QString path = dir.filePath(QStringLiteral("m/p.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(probe.data(), qint64(probe.size()));
        file.close();
        for (const std::vector<std::string> &named :
             {std::vector<std::string>{path.toStdString(), path.toStdString()},
              std::vector<std::string>{
                  dir.filePath(QStringLiteral("m")).toStdString(),
                  dir.filePath(QStringLiteral("m/../m/p.json")).toStdString()}}) {
            auto files = readImportFiles(named);
            QVERIFY2(files.ok(), files.ok() ? "" : files.error().message.c_str());
            const auto result = importMeasurements(files->inputs);
            QVERIFY2(result.ok(), qPrintable(messageOf(result)));
            QCOMPARE(result->cluster.machines[0].count, 4);
            const std::string report = importReport(*result);
            QVERIFY2(report.find("the same file as") != std::string::npos
                         && report.find("read once") != std::string::npos,
                     report.c_str());
        }
        // Two hosts may print the same topo matrix: each is about the host its name gives.
        const std::string ab
            = probeText({gpuHost("node-a", 0, 2, 600), gpuHost("node-b", 1, 2, 600)});
        const std::string topo = topoMatrix({{"X", "NV4"}, {"NV4", "X"}});
        const auto both = importMeasurements(
            {{"p.json", ab}, {"node-a.topo.txt", topo}, {"node-b.topo.txt", topo}});
        QVERIFY2(both.ok(), qPrintable(messageOf(both)));
        for (const Machine &m : both->cluster.machines)
            QVERIFY(m.intra.kind == LinkKind::NvLink);
    }

    void distinctHostsStayDistinct()
    {
        const auto dc = importMeasurements(
            {{"all_reduce_perf.log",
              twoDevicesOn({"node.dc1.example.org", "node.dc2.example.org"})}});
        QVERIFY2(dc.ok(), qPrintable(messageOf(dc)));
        const Cluster &c = dc->cluster;
        QCOMPARE(c.machines.size(), std::size_t(2));
        QCOMPARE(c.machines[0].name, std::string("node.dc1"));
        QCOMPARE(c.machines[1].name, std::string("node.dc2"));
        QCOMPARE(c.machines[0].host, std::string("node.dc1.example.org"));
        QCOMPARE(c.links.size(), std::size_t(1)); // the measurement between them is kept
        const std::string report = importReport(*dc);
        QVERIFY2(report.find("machine node.dc1: host \"node.dc1.example.org\", the domain kept")
                     != std::string::npos,
                 report.c_str());

        // Names equal in their first 128 characters, and an empty first label.
        const std::string longA = std::string(129, 'a') + "x";
        const std::string longB = std::string(129, 'a') + "y";
        const auto cut
            = importMeasurements({{"all_reduce_perf.log", twoDevicesOn({longA, longB, ".x"})}});
        QVERIFY2(cut.ok(), qPrintable(messageOf(cut)));
        const std::vector<Machine> &ms = cut->cluster.machines;
        QCOMPARE(ms.size(), std::size_t(3));
        QCOMPARE(ms[0].name, std::string(128, 'a'));
        QCOMPARE(ms[1].name, std::string(126, 'a') + "-2");
        QCOMPARE(ms[1].host, longB);
        QCOMPARE(ms[2].name, std::string(".x"));
        QCOMPARE(ms[2].host, std::string(".x"));
        QVERIFY(importReport(*cut).find("\"-2\" appended") != std::string::npos);
    }

    void hostilePairsRefused_data()
    {
        QTest::addColumn<int>("which");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown host")
            << 0 << QStringLiteral("p.json: pairs[0].b.host: host \"x\" is not among hosts[]");
        QTest::newRow("no such GPU") << 1
                                     << QStringLiteral("p.json: pairs[0].a.gpu: \"node-a\" has "
                                                       "no GPU 7 among hosts[]");
        QTest::newRow("a host with itself")
            << 2 << QStringLiteral("p.json: pairs[0]: a and b are both \"node-a\" GPU 1");
        QTest::newRow("duplicate rank")
            << 3 << QStringLiteral("p.json: hosts[1].rank: rank 0 is also hosts[0]'s");
        QTest::newRow("terminal escape in a host")
            << 4 << QStringLiteral("p.json: hosts[1].name: \"node-\\x1b[31mb\" holds a control");
        QTest::newRow("newline in a CPU model")
            << 5 << QStringLiteral("p.json: hosts[0].cpu_model: \"Xeon\\x0a\" holds a control");
    }

    void hostilePairsRefused()
    {
        QFETCH(int, which);
        QFETCH(QString, expected);
        const auto pairOf = [](Endpoint a, Endpoint b) {
            return probedPair(std::move(a), std::move(b), "nccl-sendrecv", 20, 10);
        };
        std::vector<ProbedHost> hosts{gpuHost("node-a", 0, 2, 600), gpuHost("node-b", 1, 2, 600)};
        std::vector<ProbedPair> pairs;
        if (which == 0)
            pairs.push_back(pairOf({"node-a", 0}, {"x", 0}));
        if (which == 1)
            pairs.push_back(pairOf({"node-a", 7}, {"node-b", 0}));
        if (which == 2)
            pairs.push_back(pairOf({"node-a", 1}, {"node-a", 1}));
        if (which == 3)
            hosts[1].rank = 0;
        if (which == 4)
            hosts[1].name = "node-\x1b[31mb";
        if (which == 5)
            hosts[0].cpuModel = "Xeon\n";
        const auto result = importMeasurements({{"p.json", probeText(hosts, pairs)}});
        const QString message = messageOf(result);
        QVERIFY2(message.contains(expected), qPrintable(message));
    }

    void logMessagesNameTheirSource()
    {
        // A negative time is a number, out of range.
        std::string log = twoDevicesOn({"node-a", "node-b"});
        const std::size_t time = log.find("   30.00");
        QVERIFY(time != std::string::npos);
        const auto negative = parseNcclTests(log.replace(time, 8, "  -10.01"), "t.log");
        QVERIFY(!negative.ok());
        const QString message = QString::fromStdString(negative.error().message);
        QVERIFY2(message.contains(QStringLiteral("t.log: line "))
                     && message.contains(
                         QStringLiteral("time -10.01 is out of range; valid: a number > 0")),
                 qPrintable(message));

        // A terminal escape in a log's host name is shown escaped, with file and line.
        const auto escaped = parseNcclTests(twoDevicesOn({"node-a", "evil\x1b]0;x\x07"}), "e.log");
        QVERIFY(!escaped.ok());
        QVERIFY2(escaped.error().message.find("e.log: line ") == 0
                     && escaped.error().message.find("\\x1b]0;x\\x07") != std::string::npos,
                 escaped.error().message.c_str());
    }

    void checkAfterImportNamesTheInput()
    {
        // A link beyond what a cluster file holds (> 1e7 GB/s): the message names the log line
        // the figure came from, not only the cluster's field.
        LogSpec spec;
        for (const char *host : {"node-a", "node-b"})
            for (int d = 0; d < 2; ++d)
                spec.ranks.push_back({host, d});
        spec.busBwGBps = 2e7;
        spec.latencyUs = 1e-3;
        spec.minBytes = double(1ull << 34);
        spec.maxBytes = double(1ull << 40);
        const auto result = importMeasurements({{"all_reduce_perf.log", ncclLog(spec)}});
        const QString message = messageOf(result);
        QVERIFY2(message.startsWith(QStringLiteral("all_reduce_perf.log:"))
                     && message.contains(QStringLiteral("/links/node-a/node-b/bandwidth_GBps = "))
                     && message.contains(QStringLiteral("links[0].bandwidth_GBps: "))
                     && message.contains(QStringLiteral("is out of range")),
                 qPrintable(message));
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestImportHostile)
#include "tst_import_hostile.moc"
