// hetplan-cli import's core: probe files, nccl-tests logs, topo matrices and nvbandwidth
// outputs generated from known figures (import_fixtures.h) become a cluster that carries those
// figures, records where each came from, and survives writing and reading; inconsistent
// inputs are refused naming the file and line.
#include "core/import/import.h"
#include "core/import/nvidia_topo.h"
#include "core/io/catalog_json.h"
#include "core/io/formats.h"
#include "core/model/topology.h"
#include "import_fixtures.h"
#include "tests/test_registry.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>

using namespace hetplan;
using namespace hetplan::fixtures;

namespace {

ImportResult imported(const std::vector<ImportInput> &inputs)
{
    auto result = importMeasurements(inputs);
    if (!result)
        qFatal("%s", result.error().message.c_str());
    return std::move(result).value();
}

QString errorOf(const std::vector<ImportInput> &inputs)
{
    auto result = importMeasurements(inputs);
    return result ? QString() : QString::fromStdString(result.error().message);
}

const MeasuredFigure *figure(const Cluster &c, const std::string &field)
{
    for (const MeasuredFigure &f : c.origin.figures)
        if (f.field == field)
            return &f;
    return nullptr;
}

const PairOverride *overrideOf(const Cluster &c, const std::string &a, const std::string &b)
{
    for (const PairOverride &p : c.pairOverrides)
        if ((p.a == a && p.b == b) || (p.a == b && p.b == a))
            return &p;
    return nullptr;
}

const Link *linkOf(const Cluster &c, const std::string &machine)
{
    for (const Link &l : c.links)
        if (l.a == machine)
            return &l;
    return nullptr;
}

bool hasNote(const ImportResult &r, const std::string &text)
{
    return std::ranges::any_of(
        r.notes, [&](const std::string &n) { return n.find(text) != std::string::npos; });
}

// The emulated cluster's shape (docs/emulated-cluster.md): A and B at 0.1 GB/s, C at 0.02,
// every pair `latencyUs` one way but A-B's `abLatencyUs`; each pair through a switch.
Probe emulatedProbe(double abLatencyUs, double latencyUs)
{
    return probeOf({cpuRank("A", 0, 0.1), cpuRank("B", 1, 0.1), cpuRank("C", 2, 0.1)},
                   {probedPair({"A"}, {"B"}, "gloo-tcp", 0.1, abLatencyUs),
                    probedPair({"A"}, {"C"}, "gloo-tcp", 0.02, latencyUs),
                    probedPair({"B"}, {"C"}, "gloo-tcp", 0.02, latencyUs)});
}

bool near(double value, double expected, double relative)
{
    return std::abs(value - expected) <= relative * expected;
}

// Written and read back, the cluster is the same and builds a topology.
void checkRoundTrip(const Cluster &c)
{
    auto read = parseCluster(writeCluster(c), "imported.json");
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
    QVERIFY(*read == c);
    auto topology = Topology::build(*read, builtinGpuCatalog());
    QVERIFY2(topology.ok(), topology.ok() ? "" : topology.error().message.c_str());
}

std::vector<LogRank> ranksOn(const std::string &host, int count)
{
    std::vector<LogRank> ranks;
    for (int d = 0; d < count; ++d)
        ranks.push_back({host, d});
    return ranks;
}

} // namespace

class TestImport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void cpuProbeOfLocalRanks()
    {
        const Probe probe = probeOf(
            {cpuRank("box#0", 0, 0.10), cpuRank("box#1", 1, 0.12), cpuRank("box#2", 2, 0.11)},
            {probedPair({"box#0"}, {"box#1"}, "gloo-tcp", 5, 20),
             probedPair({"box#0"}, {"box#2"}, "gloo-tcp", 5.2, 22),
             probedPair({"box#1"}, {"box#2"}, "gloo-tcp", 1, 200)});
        const ImportResult r = imported({{"local.probe.json", writeProbe(probe)}});
        const Cluster &c = r.cluster;
        QCOMPARE(c.machines.size(), std::size_t(1));
        const Machine &m = c.machines[0];
        QCOMPARE(m.name, std::string("box"));
        QCOMPARE(m.host, std::string("box"));
        QCOMPARE(m.count, 3); // one device per rank
        QCOMPARE(m.gpu, std::string("CPU Intel Xeon Gold 6348"));
        QVERIFY(m.intra.kind == LinkKind::Ethernet);
        // The median pair, a little under 5 GB/s at 64 MiB with 20 us of latency.
        QVERIFY2(near(m.intra.bandwidthGBps, 5, 0.01),
                 qPrintable(QString::number(m.intra.bandwidthGBps)));
        QVERIFY(near(m.intra.latencyUs, 22, 0.01));
        QCOMPARE(c.gpuTypes.size(), std::size_t(1));
        const GpuType &t = c.gpuTypes[0];
        QVERIFY(near(t.tflops, 0.11, 1e-9)); // the median rank
        QCOMPARE(t.achievedFraction, 1.0);
        QCOMPARE(t.memoryBandwidthGBps, 20.0);
        QCOMPARE(t.memoryGiB, ImportOptions{}.cpuMemoryGiB);
        // The slow pair differs notably from the machine's link: an override.
        const PairOverride *slow = overrideOf(c, "box:1", "box:2");
        QVERIFY(slow);
        QVERIFY(near(slow->bandwidthGBps, 1, 0.01));
        QVERIFY(near(slow->latencyUs, 200, 1e-3));
        QVERIFY(!overrideOf(c, "box:0", "box:1"));
        // Every figure says where it came from.
        const MeasuredFigure *intra = figure(c, "/machines/box/intra/bandwidth_GBps");
        QVERIFY(intra);
        QVERIFY2(intra->source.find("local.probe.json: pairs[") == 0, intra->source.c_str());
        QVERIFY(intra->how.find("median over 3 pairs of its devices") != std::string::npos);
        const std::string cpuType = "/gpu_types/CPU Intel Xeon Gold 6348/";
        QVERIFY(figure(c, cpuType + "membw_GBps")->source.find(".cpu_memory") != std::string::npos);
        QVERIFY(figure(c, "/gpu_types/CPU Intel Xeon Gold 6348/tflops"));
        QVERIFY(figure(c, "/pair_overrides/box:1/box:2/bandwidth_GBps"));
        QCOMPARE(c.origin.sources, std::vector<std::string>{"local.probe.json"});
        QVERIFY(std::ranges::any_of(r.notes, [](const std::string &n) {
            return n.find("memory_GiB 16 per rank is assumed") != std::string::npos;
        }));
        checkRoundTrip(c);
        const std::string report = importReport(r);
        for (const MeasuredFigure &f : c.origin.figures)
            QVERIFY2(report.find(f.field + " = ") != std::string::npos, f.field.c_str());
    }

    // Each source where it measures best: NCCL logs over the probe's copies and TCP pairs,
    // nvbandwidth over the topo matrix's NVLink estimate.
    void gpuHostsFromEverySource()
    {
        const Probe probe
            = probeOf({gpuHost("node-a", 0, 4, 600), gpuHost("node-b", 1, 4, 580)},
                      {probedPair({"node-a"}, {"node-b"}, "gloo-tcp", 10, 30),
                       probedPair({"node-a", 0}, {"node-a", 1}, "cuda-peer-copy", 300, 8)});
        LogSpec intra;
        intra.ranks = ranksOn("node-a", 4);
        intra.busBwGBps = 360;
        intra.latencyUs = 4;
        LogSpec inter;
        inter.ranks = ranksOn("node-a", 4);
        for (const LogRank &r : ranksOn("node-b.example.org", 4))
            inter.ranks.push_back(r);
        inter.busBwGBps = 45;
        inter.latencyUs = 6;
        inter.layout = LogLayout::Old;
        std::vector<std::vector<std::string>> cells(4, std::vector<std::string>(4, "NV18"));
        std::vector<std::vector<double>> gbps(4, std::vector<double>(4, 380));
        for (int i = 0; i < 4; ++i)
            cells[i][i] = "X";
        gbps[2][3] = gbps[3][2] = 25;
        const ImportResult r = imported({
            {"logs/node-b.nvbandwidth.txt", nvbandwidthOutput(gbps)},
            {"logs/node-b.topo.txt", topoMatrix(cells)},
            {"logs/all_reduce_perf.log", ncclLog(intra)},
            {"logs/all_reduce_perf.2nodes.log", ncclLog(inter)},
            {"cluster.probe.json", writeProbe(probe)},
        });
        const Cluster &c = r.cluster;
        QCOMPARE(c.machines.size(), std::size_t(2));
        const Machine &a = c.machines[0];
        const Machine &b = c.machines[1];
        QCOMPARE(a.gpu, std::string("H100-80G"));
        QCOMPARE(a.count, 4);
        QVERIFY2(near(a.intra.bandwidthGBps, 360, 0.01),
                 qPrintable(QString::number(a.intra.bandwidthGBps)));
        QVERIFY2(near(a.intra.latencyUs, 4, 0.05), qPrintable(QString::number(a.intra.latencyUs)));
        QVERIFY(figure(c, "/machines/node-a/intra/bandwidth_GBps")
                    ->source.starts_with("logs/all_reduce_perf.log:"));
        QVERIFY(b.intra.kind == LinkKind::NvLink);
        QCOMPARE(b.intra.bandwidthGBps, 380.0); // nvbandwidth, not 18 × 25
        QVERIFY(figure(c, "/machines/node-b/intra/kind")->source == "logs/node-b.topo.txt");
        const PairOverride *slow = overrideOf(c, "node-b:2", "node-b:3");
        QVERIFY(slow);
        QCOMPARE(slow->bandwidthGBps, 25.0);
        // The catalog type with the measured fraction of its peak.
        QCOMPARE(c.gpuTypes.size(), std::size_t(1));
        const GpuType &h100 = c.gpuTypes[0];
        QCOMPARE(h100.name, std::string("H100-80G"));
        QCOMPARE(h100.tflops, builtinGpuCatalog().find("H100-80G")->tflops);
        QVERIFY(near(h100.achievedFraction, 590.0 / h100.tflops, 1e-9));
        QCOMPARE(h100.memoryBandwidthGBps, 3000.0);
        // Two machines: one direct link, at what NCCL got across them.
        QCOMPARE(c.links.size(), std::size_t(1));
        QVERIFY(c.switches.empty());
        QVERIFY2(near(c.links[0].bandwidthGBps, 45, 0.01),
                 qPrintable(QString::number(c.links[0].bandwidthGBps)));
        QVERIFY2(near(c.links[0].latencyUs, 6, 0.05),
                 qPrintable(QString::number(c.links[0].latencyUs)));
        QVERIFY(
            figure(c, "/links/node-a/node-b/bandwidth_GBps")->how.find("all_reduce over 8 ranks")
            != std::string::npos);
        checkRoundTrip(c);
    }

    void threeMachinesThroughASwitch()
    {
        const Probe probe
            = probeOf({cpuRank("h1", 0, 0.1), cpuRank("h2", 1, 0.1), cpuRank("h3", 2, 0.1)},
                      {probedPair({"h1"}, {"h2"}, "gloo-tcp", 1.2, 40),
                       probedPair({"h2"}, {"h3"}, "gloo-tcp", 1.25, 44),
                       probedPair({"h1"}, {"h3"}, "gloo-tcp", 0.3, 40)});
        const ImportResult r = imported({{"p.json", writeProbe(probe)}});
        const Cluster &c = r.cluster;
        QCOMPARE(c.switches.size(), std::size_t(1));
        QCOMPARE(c.links.size(), std::size_t(3));
        for (const Link &l : c.links) {
            QCOMPARE(l.b, c.switches[0].name);
            QVERIFY(near(l.latencyUs, 20, 1e-3)); // half the lowest one-way time of its pairs
        }
        QVERIFY(overrideOf(c, "h1:0", "h3:0"));
        QVERIFY(!overrideOf(c, "h2:0", "h3:0"));
        QVERIFY(c.machines[0].intra == GpuType{}.typicalIntra); // one rank: no intra figure
        checkRoundTrip(c);
    }

    // A latency spike on a busy host: the 4-byte messages of A-B took 2 ms, so 64 KiB took
    // less than half of that and the probe flagged sizes[1]. The flag says nothing of the
    // bandwidth at 64 MiB: A keeps its A-B rate, not the A-C pair's.
    void flagOnSmallMessagesKeepsTheBandwidth()
    {
        Probe probe = emulatedProbe(60, 60);
        probe.pairs[0].sizes[0].timeUs = spread(2000);
        summarizePair(probe.pairs[0]);
        const ImportResult r = imported({{"p.json", writeProbe(probe)}});
        for (const char *machine : {"A", "B"}) {
            const Link *link = linkOf(r.cluster, machine);
            QVERIFY(link);
            QVERIFY2(near(link->bandwidthGBps, 0.1, 1e-3),
                     qPrintable(QString::number(link->bandwidthGBps)));
            QVERIFY2(near(link->latencyUs, 30, 1e-2), // half the A-C pair's, not the spike's
                     qPrintable(QString::number(link->latencyUs)));
        }
        QVERIFY(near(linkOf(r.cluster, "C")->bandwidthGBps, 0.02, 1e-3));
        QVERIFY(hasNote(r, "p.json: pairs[0].latency_us: left out: the probe flagged "
                           "pairs[0].sizes[1].time_us (not-monotone)"));
        checkRoundTrip(r.cluster);
    }

    // The 16 MiB messages of A-B were slow, so 64 MiB took less than half their time: the
    // bandwidth (at 64 MiB) is left out, the latency (at 4 bytes) still counts.
    void flagOnTheLargestMessageKeepsTheLatency()
    {
        Probe probe = emulatedProbe(20, 60);
        probe.pairs[0].sizes[2].timeUs = spread(1.5e6);
        const ImportResult r = imported({{"p.json", writeProbe(probe)}});
        const Link *a = linkOf(r.cluster, "A");
        QVERIFY(a);
        QVERIFY(near(a->bandwidthGBps, 0.02, 1e-3)); // the A-C pair's: A-B's is not believed
        QVERIFY2(near(a->latencyUs, 10, 1e-2), qPrintable(QString::number(a->latencyUs)));
        QVERIFY(hasNote(r, "p.json: pairs[0].bandwidth_GBps: left out: the probe flagged "
                           "pairs[0].sizes[3].time_us (not-monotone)"));
        checkRoundTrip(r.cluster);
    }

    // A flag that concerns both figures (two sizes only: the smallest is also next to the
    // largest) leaves the pair out, as before.
    void flagOnBothFiguresLeavesThePairOut()
    {
        Probe probe = emulatedProbe(60, 60);
        for (ProbedPair &p : probe.pairs)
            p.sizes = {p.sizes.front(), p.sizes.back()};
        probe.pairs[0].sizes[0].timeUs = spread(1.5e6);
        summarizePair(probe.pairs[0]);
        const ImportResult r = imported({{"p.json", writeProbe(probe)}});
        QVERIFY(hasNote(r, "p.json: pairs[0]: left out: the probe flagged "
                           "pairs[0].sizes[1].time_us (not-monotone) as not plausible"));
        QVERIFY(near(linkOf(r.cluster, "A")->bandwidthGBps, 0.02, 1e-3));
    }

    void topoMatrixWithEveryClass()
    {
        const std::vector<std::vector<std::string>> cells{{"X", "NV12", "PXB", "PHB"},
                                                          {"NV12", "X", "NODE", "SYS"},
                                                          {"PXB", "NODE", "X", "PIX"},
                                                          {"PHB", "SYS", "PIX", "X"}};
        const std::string text = topoMatrix(cells);
        auto topo = parseNvidiaTopo(text, "box.topo.txt");
        QVERIFY2(topo.ok(), topo.ok() ? "" : topo.error().message.c_str());
        QCOMPARE(topo->devices.back(), std::string("mlx5_0"));
        for (std::size_t i = 0; i < 4; ++i)
            for (std::size_t j = 0; j < 4; ++j)
                QCOMPARE(topo->links[i][j], cells[i][j]);
        LogSpec spec;
        spec.ranks = ranksOn("box", 4);
        spec.ranks[0].name = spec.ranks[1].name = spec.ranks[2].name = spec.ranks[3].name
            = "NVIDIA A100-SXM4-80GB";
        spec.collective = "sendrecv";
        const ImportResult r
            = imported({{"box.topo.txt", text}, {"sendrecv_perf.log", ncclLog(spec)}});
        const Machine &m = r.cluster.machines[0];
        QCOMPARE(m.gpu, std::string("A100-80G"));
        QVERIFY(m.intra.kind == LinkKind::Pcie); // 5 of 6 pairs cross PCIe
        QVERIFY(figure(r.cluster, "/machines/box/intra/kind")->how.find("NV12 on 1")
                != std::string::npos);
        // The one NVLink pair: 12 links' worth, beside the measured PCIe link.
        const PairOverride *nv = overrideOf(r.cluster, "box:0", "box:1");
        QVERIFY(nv);
        QCOMPARE(nv->bandwidthGBps, 300.0);
        checkRoundTrip(r.cluster);
    }

    void inconsistentInputsRefused_data()
    {
        QTest::addColumn<QString>("expected");
        QTest::addColumn<int>("which");
        QTest::newRow("log device beyond the probe's GPUs")
            << QStringLiteral("all_reduce_perf.log:") << 0;
        QTest::newRow("topo of another GPU count")
            << QStringLiteral("node-a.topo.txt: 2 GPUs") << 1;
        QTest::newRow("host in two probe files") << QStringLiteral("also in a.probe.json") << 2;
        QTest::newRow("topo of which machine") << QStringLiteral("cannot tell which machine") << 3;
        QTest::newRow("not an import kind") << QStringLiteral("notes.txt: not a file") << 4;
        QTest::newRow("a JSON file of another kind")
            << QStringLiteral("is not a probe file; valid: hetplan.probe/1") << 5;
        QTest::newRow("GPU outside the catalog, no probe")
            << QStringLiteral("no GPU type of the catalog") << 6;
    }

    void inconsistentInputsRefused()
    {
        QFETCH(QString, expected);
        QFETCH(int, which);
        const std::string probeA = writeProbe(probeOf({gpuHost("node-a", 0, 4, 600)}, {}));
        const std::string probeAB
            = writeProbe(probeOf({gpuHost("node-a", 0, 4, 600), gpuHost("node-b", 1, 4, 600)}, {}));
        LogSpec five;
        five.ranks = ranksOn("node-a", 5);
        LogSpec odd;
        odd.ranks = ranksOn("lab", 2);
        odd.ranks[0].name = odd.ranks[1].name = "Acme Tensor 9000";
        std::vector<std::vector<std::string>> two{{"X", "NV4"}, {"NV4", "X"}};
        const std::vector<std::vector<ImportInput>> cases{
            {{"a.probe.json", probeA}, {"all_reduce_perf.log", ncclLog(five)}},
            {{"a.probe.json", probeA}, {"node-a.topo.txt", topoMatrix(two)}},
            // Another measurement of node-a (the same content would be read once).
            {{"a.probe.json", probeA},
             {"b.probe.json", writeProbe(probeOf({gpuHost("node-a", 0, 4, 590)}, {}))}},
            {{"ab.probe.json", probeAB}, {"gpus.topo.txt", topoMatrix(two)}},
            {{"notes.txt", "remember the milk\n"}},
            {{"c.json", R"({"format": "hetplan.cluster/1", "name": "x", "machines": []})"}},
            {{"all_reduce_perf.log", ncclLog(odd)}},
        };
        const QString message = errorOf(cases[std::size_t(which)]);
        QVERIFY2(message.contains(expected), qPrintable(message));
    }

    void foldersOfFiles()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QDir(dir.path()).mkpath(QStringLiteral("logs"));
        const auto write = [&](const QString &name, const std::string &text) {
            QFile f(dir.filePath(name));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(text.data(), qint64(text.size()));
        };
        LogSpec spec;
        spec.ranks = ranksOn("node-a", 2);
        write(QStringLiteral("logs/all_reduce_perf.log"), ncclLog(spec));
        write(QStringLiteral("README"), "how these were measured\n");
        // A log too large to be one: skipped unread, not read into memory and refused.
        write(QStringLiteral("logs/huge_perf.log"), ncclLog(spec) + std::string(17u << 20, ' '));
        auto files = readImportFiles({dir.path().toStdString()});
        QVERIFY2(files.ok(), files.ok() ? "" : files.error().message.c_str());
        QCOMPARE(files->inputs.size(), std::size_t(1));
        QVERIFY(files->inputs[0].path.ends_with("logs/all_reduce_perf.log"));
        QCOMPARE(files->skipped.size(), std::size_t(2));
        // Named explicitly, a file of no import kind is an error, not skipped.
        auto named = readImportFiles({dir.filePath(QStringLiteral("README")).toStdString()});
        QVERIFY(named.ok());
        QVERIFY(!importMeasurements(named->inputs).ok());
        QVERIFY(!readImportFiles({dir.filePath(QStringLiteral("missing")).toStdString()}).ok());
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestImport)
#include "tst_import.moc"
