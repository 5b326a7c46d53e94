// Topology: GPU numbering, pair bandwidth/latency over intra links, networks and overrides,
// and the errors build() reports for bad references.
#include "core/io/catalog_json.h"
#include "core/model/bandwidth_edit.h"
#include "core/model/topology.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <algorithm>
#include <string>

using namespace hetplan;

namespace {

constexpr std::string_view kCatalogJson = R"({
  "format": "hetplan.gpu-catalog/1",
  "gpus": [
    {"name": "Big", "tflops": 300, "memory_GiB": 80, "membw_GBps": 2000, "source": "test"},
    {"name": "Small", "tflops": 65, "memory_GiB": 16, "membw_GBps": 320, "source": "test"}
  ]
})";

const GpuCatalog &testCatalog()
{
    static const GpuCatalog catalog = [] {
        auto parsed = readGpuCatalog(kCatalogJson, "test catalog");
        if (!parsed)
            qFatal("test catalog: %s", parsed.error().message.c_str());
        return std::move(parsed).value();
    }();
    return catalog;
}

Machine machine(std::string name, int count, double intraGBps = 100, double intraUs = 3)
{
    Machine m;
    m.name = std::move(name);
    m.gpu = "Big";
    m.count = count;
    m.intra = {LinkKind::NvLink, intraGBps, intraUs};
    return m;
}

// Machines A (2 GPUs), B and C (1 GPU each); every other name in `links` is a switch.
// `links` reads "A-sw:10:5,sw-B:2:7": endpoints, bandwidth in GB/s, latency in us.
Cluster threeMachines(const QString &links)
{
    Cluster c;
    c.name = "test";
    c.machines = {machine("A", 2), machine("B", 1), machine("C", 1)};
    const auto isMachine = [](const QString &n) {
        return n == QLatin1String("A") || n == QLatin1String("B") || n == QLatin1String("C");
    };
    for (const QString &spec : links.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QStringList parts = spec.split(QLatin1Char(':'));
        const QStringList ends = parts.at(0).split(QLatin1Char('-'));
        Link l;
        l.a = ends.at(0).toStdString();
        l.b = ends.at(1).toStdString();
        l.bandwidthGBps = parts.at(1).toDouble();
        l.latencyUs = parts.at(2).toDouble();
        c.links.push_back(l);
        for (const QString &end : ends) {
            const auto sameName = [&](const Switch &s) { return s.name == end.toStdString(); };
            if (!isMachine(end) && std::none_of(c.switches.begin(), c.switches.end(), sameName))
                c.switches.push_back({end.toStdString(), {}});
        }
    }
    return c;
}

Topology buildOrFail(const Cluster &cluster)
{
    auto topology = Topology::build(cluster, testCatalog());
    if (!topology)
        qFatal("build failed: %s", topology.error().message.c_str());
    return std::move(topology).value();
}

} // namespace

class TestTopology : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void gpusAreNumberedMachineByMachine();
    void sameMachineUsesIntraLink();
    void machinePath_data();
    void machinePath();
    void disconnectedPairHasNoBandwidth();
    void overridesWin();
    void customTypeShadowsCatalog();
    void buildErrors_data();
    void buildErrors();
    void hostileNetworkIsRefusedNotComputed();
    void largeRealisticFabricBuilds();
    void whatIfEditRebuildsOverTheResolvedTypes();
};

void TestTopology::gpusAreNumberedMachineByMachine()
{
    const Topology t = buildOrFail(threeMachines(QStringLiteral("A-sw:1:1,B-sw:1:1,C-sw:1:1")));
    QCOMPARE(t.gpuCount(), 4);
    QVERIFY(t.gpu(0).name == "A:0");
    QVERIFY(t.gpu(1).name == "A:1");
    QVERIFY(t.gpu(2).name == "B:0");
    QCOMPARE(t.gpu(3).machine, 2);
    QCOMPARE(t.gpu(1).local, 1);
    QCOMPARE(t.firstGpuOf(1), 2);
    QCOMPARE(t.findGpu("C:0"), std::optional<int>(3));
    QCOMPARE(t.findGpu("A:2"), std::optional<int>());
    QCOMPARE(t.findGpu("Z:0"), std::optional<int>());
    QCOMPARE(t.findGpu("A"), std::optional<int>());
    QCOMPARE(t.findGpu("A:x"), std::optional<int>());
    QCOMPARE(t.gpuType(3).name, std::string("Big"));
}

void TestTopology::sameMachineUsesIntraLink()
{
    const Topology t = buildOrFail(threeMachines(QStringLiteral("A-B:1:50")));
    QCOMPARE(t.bandwidthGBps(0, 1), 100.0);
    QCOMPARE(t.latencyUs(1, 0), 3.0);
    QCOMPARE(t.bandwidthBytesPerS(0, 1), 100e9);
    QCOMPARE(t.latencyS(0, 1), 3e-6);
    // GPU 0 and GPU 2 are in different machines: the network, not the intra link.
    QCOMPARE(t.bandwidthGBps(0, 2), 1.0);
    QCOMPARE(t.latencyUs(0, 2), 50.0);
}

void TestTopology::machinePath_data()
{
    QTest::addColumn<QString>("links");
    QTest::addColumn<double>("bandwidthGBps"); // between machines A and B
    QTest::addColumn<double>("latencyUs");

    QTest::newRow("through a switch: the narrowest link")
        << QStringLiteral("A-sw:10:5,B-sw:2:7") << 2.0 << 12.0;
    QTest::newRow("wider two-hop path beats a narrow direct link")
        << QStringLiteral("A-B:1:1,A-sw:10:5,sw-B:8:5") << 8.0 << 10.0;
    QTest::newRow("equally wide: the lower latency")
        << QStringLiteral("A-B:5:30,A-sw:5:5,sw-B:5:5") << 5.0 << 10.0;
    // A wide, slow detour to X must not hide the narrow fast link when X-B is narrow anyway.
    QTest::newRow("bottleneck later on: the fastest path of that width")
        << QStringLiteral("A-s1:10:50,s1-X:10:50,A-X:5:1,X-B:5:1") << 5.0 << 2.0;
    QTest::newRow("a machine relays between its links")
        << QStringLiteral("A-C:4:3,C-B:4:3") << 4.0 << 6.0;
    QTest::newRow("parallel links: the wider one")
        << QStringLiteral("A-B:1:1,A-B:3:9") << 3.0 << 9.0;
}

void TestTopology::machinePath()
{
    QFETCH(QString, links);
    QFETCH(double, bandwidthGBps);
    QFETCH(double, latencyUs);

    const Topology t = buildOrFail(threeMachines(links));
    QCOMPARE(t.machineBandwidthGBps(0, 1), bandwidthGBps);
    QCOMPARE(t.machineBandwidthGBps(1, 0), bandwidthGBps);
    QCOMPARE(t.machineLatencyUs(0, 1), latencyUs);
    // Every GPU of A reaches B's GPU over the same path, in both directions.
    for (int a : {0, 1}) {
        QCOMPARE(t.bandwidthGBps(a, 2), bandwidthGBps);
        QCOMPARE(t.bandwidthGBps(2, a), bandwidthGBps);
        QCOMPARE(t.latencyUs(2, a), latencyUs);
    }
}

void TestTopology::disconnectedPairHasNoBandwidth()
{
    // C has no link at all; A and B share a switch.
    const Topology t = buildOrFail(threeMachines(QStringLiteral("A-sw:1:1,B-sw:1:1")));
    QCOMPARE(t.bandwidthGBps(0, 3), 0.0);
    QVERIFY(!t.connected(0, 3));
    QVERIFY(!t.connected(3, 2));
    QCOMPARE(t.machineBandwidthGBps(0, 2), 0.0);
    QVERIFY(t.connected(0, 2));
    QVERIFY(t.connected(3, 3));
}

void TestTopology::overridesWin()
{
    Cluster c = threeMachines(QStringLiteral("A-sw:10:5,B-sw:10:5"));
    c.pairOverrides = {{"B:0", "A:1", 0.5, 99}, {"A:0", "A:1", 7, 11}};
    const Topology t = buildOrFail(c);
    QCOMPARE(t.bandwidthGBps(1, 2), 0.5);
    QCOMPARE(t.bandwidthGBps(2, 1), 0.5);
    QCOMPARE(t.latencyUs(1, 2), 99.0);
    QCOMPARE(t.bandwidthGBps(0, 1), 7.0); // over the intra link too
    QCOMPARE(t.latencyUs(1, 0), 11.0);
    QCOMPARE(t.bandwidthGBps(0, 2), 10.0); // pairs without an override keep the network path
    QCOMPARE(t.latencyUs(0, 2), 10.0);
}

void TestTopology::customTypeShadowsCatalog()
{
    Cluster c = threeMachines(QString());
    GpuType own;
    own.name = "Big";
    own.tflops = 1;
    own.memoryGiB = 4;
    own.memoryBandwidthGBps = 100;
    GpuType extra = own;
    extra.name = "Homebrew";
    c.gpuTypes = {own, extra};
    c.machines[1].gpu = "Homebrew";
    c.machines[2].gpu = "small"; // catalog names match ignoring case
    const Topology t = buildOrFail(c);
    QCOMPARE(t.gpuType(0).tflops, 1.0);
    QVERIFY(t.gpuType(2).name == "Homebrew");
    QCOMPARE(t.gpuType(3).tflops, 65.0);
    QCOMPARE(t.gpu(0).typeIndex, t.gpu(1).typeIndex);
    QVERIFY(t.gpu(0).typeIndex != t.gpu(2).typeIndex);
}

void TestTopology::buildErrors_data()
{
    QTest::addColumn<int>("mutation");
    QTest::addColumn<QString>("expected"); // part of the message

    QTest::newRow("unknown GPU type")
        << 0 << QStringLiteral("machines[1].gpu: unknown GPU type 'X100'; known: Mine, Big, Small");
    QTest::newRow("duplicate machine")
        << 1 << QStringLiteral("machines[2].name: duplicate name 'A'");
    QTest::newRow("switch named like a machine")
        << 2 << QStringLiteral("switches[1].name: duplicate name 'B' (also machines[1])");
    QTest::newRow("link to nowhere") << 3 << QStringLiteral("links[1].b: 'nowhere' is neither");
    QTest::newRow("override of a missing GPU")
        << 4 << QStringLiteral("pair_overrides[0].a: unknown GPU 'A:5'");
    QTest::newRow("machine without GPUs")
        << 5 << QStringLiteral("machines[0].count: must be between 1");
    QTest::newRow("override without machines")
        << 6
        << QStringLiteral(
               "pair_overrides[0].a: unknown GPU 'A:0'; GPUs are named machine:index and this "
               "cluster has none");
    QTest::newRow("negative bandwidth") << 7 << QStringLiteral("links[0].bandwidth_GBps: must be");
    QTest::newRow("link to itself") << 8 << QStringLiteral("links[1]: links 'sw' to itself");
    QTest::newRow("too many GPUs") << 9 << QStringLiteral("GPUs in total; at most 65536");
    QTest::newRow("override measured twice")
        << 10
        << QStringLiteral(
               "pair_overrides[1]: the pair A:1 / A:0 is already measured by pair_overrides[0]");
}

void TestTopology::buildErrors()
{
    QFETCH(int, mutation);
    QFETCH(QString, expected);

    Cluster c = threeMachines(QStringLiteral("A-sw:1:1,B-sw:1:1"));
    GpuType mine;
    mine.name = "Mine";
    mine.tflops = 1;
    c.gpuTypes = {mine};
    switch (mutation) {
    case 0:
        c.machines[1].gpu = "X100";
        break;
    case 1:
        c.machines[2].name = "A";
        break;
    case 2:
        c.switches.push_back({"B", {}});
        break;
    case 3:
        c.links[1].b = "nowhere";
        break;
    case 4:
        c.pairOverrides = {{"A:5", "B:0", 1, 1}};
        break;
    case 5:
        c.machines[0].count = 0;
        break;
    case 6:
        c.machines.clear();
        c.links.clear();
        c.pairOverrides = {{"A:0", "A:1", 1, 1}};
        break;
    case 7:
        c.links[0].bandwidthGBps = -1;
        break;
    case 8:
        c.links[1].a = "sw";
        break;
    case 9:
        for (Machine &m : c.machines)
            m.count = kMaxGpusPerMachine;
        c.machines.resize(66, c.machines.front());
        for (size_t i = 0; i < c.machines.size(); ++i)
            c.machines[i].name = "m" + std::to_string(i);
        c.links.clear();
        c.switches.clear();
        break;
    case 10:
        c.pairOverrides = {{"A:0", "A:1", 1, 1}, {"A:1", "A:0", 2, 2}};
        break;
    default:
        QFAIL("unknown mutation");
    }
    const auto topology = Topology::build(c, testCatalog());
    QVERIFY(!topology.ok());
    const QString message = QString::fromStdString(topology.error().message);
    QVERIFY2(message.contains(expected), qPrintable(message));
    QVERIFY(topology.error().kind == ErrorKind::BadInput);
}

// A ring of the most machines allowed with a different bandwidth on every link would take
// minutes of path searches; it is refused with a message instead.
void TestTopology::hostileNetworkIsRefusedNotComputed()
{
    Cluster c;
    c.name = "hostile";
    for (int i = 0; i < kMaxMachines; ++i)
        c.machines.push_back(machine("m" + std::to_string(i), 1));
    for (int i = 0; i < kMaxMachines; ++i)
        c.links.push_back({"m" + std::to_string(i), "m" + std::to_string((i + 1) % kMaxMachines),
                           LinkKind::Ethernet, 1.0 + i * 1e-3, 5});
    const auto topology = Topology::build(c, testCatalog());
    QVERIFY(!topology.ok());
    QVERIFY2(topology.error().message.find("distinct bandwidths") != std::string::npos,
             topology.error().message.c_str());
}

// 1024 machines of 8 GPUs behind 32 leaf switches and one spine: a real fleet's shape.
void TestTopology::largeRealisticFabricBuilds()
{
    Cluster c;
    c.name = "fabric";
    c.switches.push_back({"spine", {}});
    for (int leaf = 0; leaf < 32; ++leaf) {
        c.switches.push_back({"leaf" + std::to_string(leaf), {}});
        c.links.push_back({"leaf" + std::to_string(leaf), "spine", LinkKind::InfiniBand,
                           50.0 * (1 + leaf % 3), 2});
    }
    for (int i = 0; i < 1024; ++i) {
        c.machines.push_back(machine("m" + std::to_string(i), 8));
        c.links.push_back({"m" + std::to_string(i), "leaf" + std::to_string(i / 32),
                           LinkKind::InfiniBand, 25, 2});
    }
    const Topology t = buildOrFail(c);
    QCOMPARE(t.gpuCount(), 8192);
    // m0 and m1023 meet at the spine: the narrowest link is a machine uplink, 25 GB/s,
    // over four hops of 2 us.
    QCOMPARE(t.machineBandwidthGBps(0, 1023), 25.0);
    QCOMPARE(t.machineLatencyUs(0, 1023), 8.0);
}

// A what-if slider's edit (docs/architecture.md, "Following a what-if bandwidth"): the scaled
// cluster is built over the GPU types the topology resolved, with no catalog, and reads as the
// same cluster built from scratch, effective figures included.
void TestTopology::whatIfEditRebuildsOverTheResolvedTypes()
{
    const Topology base = buildOrFail(threeMachines(QStringLiteral("A-sw:10:5,B-sw:20:5")));
    const std::vector<BandwidthTarget> targets = bandwidthTargets(base.cluster());
    std::vector<double> factors(targets.size(), 1.0);
    factors[0] = 2.0; // every network link
    QCOMPARE(targets[0].kind, BandwidthTarget::Kind::Network);
    const auto scaled = scaledTopology(base, targets, factors);
    QVERIFY(scaled);
    QCOMPARE(scaled->bandwidthGBps(0, 2), 20.0);
    QCOMPARE(scaled->bandwidthGBps(0, 1), base.bandwidthGBps(0, 1)); // intra links untouched
    const Topology fresh = buildOrFail(scaledCluster(base.cluster(), targets, factors));
    for (int a = 0; a < fresh.gpuCount(); ++a) {
        QCOMPARE(scaled->gpuType(a), fresh.gpuType(a));
        for (int b = 0; b < fresh.gpuCount(); ++b)
            if (a != b) {
                QCOMPARE(scaled->effectiveBandwidthBytesPerS(a, b),
                         fresh.effectiveBandwidthBytesPerS(a, b));
                QCOMPARE(scaled->effectiveLatencyS(a, b), fresh.effectiveLatencyS(a, b));
            }
    }
}

HETPLAN_TEST_APPLESS_MAIN(TestTopology)
#include "tst_topology.moc"
