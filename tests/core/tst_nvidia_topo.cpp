// `nvidia-smi topo -m` outputs (tests/data/topo/, written in the documented format: current
// drivers with NIC and NUMA columns, an older driver without them, a copy from a terminal)
// parse into the links the probe file lists; broken matrices are refused naming the line.
#include "core/import/nvidia_topo.h"
#include "core/io/files.h"
#include "tests/test_registry.h"

#include <QTest>

#include <string>

using namespace hetplan;

namespace {

std::string topoFile(const char *name)
{
    auto text = readTextFile(std::string(HETPLAN_TEST_DATA_DIR "/topo/") + name);
    if (!text)
        qFatal("%s", text.error().message.c_str());
    return *text;
}

NvidiaTopology parsed(const char *name)
{
    auto topo = parseNvidiaTopo(topoFile(name), name);
    if (!topo)
        qFatal("%s", topo.error().message.c_str());
    return *topo;
}

std::string linkBetween(const std::vector<TopoLink> &links, const std::string &a,
                        const std::string &b)
{
    for (const TopoLink &l : links)
        if (l.a == a && l.b == b)
            return l.link;
    return "none";
}

} // namespace

class TestNvidiaTopo : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void currentDriverWithNicsAndNuma()
    {
        const NvidiaTopology topo = parsed("nvlink-4gpu-2nic.txt");
        const std::vector<std::string> devices{"GPU0", "GPU1", "GPU2", "GPU3", "mlx5_0", "mlx5_1"};
        QVERIFY(topo.devices == devices);
        QCOMPARE(topo.cpuAffinity[2], std::string("32-63,96-127"));
        QCOMPARE(topo.numaAffinity[1], std::string("0"));
        QCOMPARE(topo.numaAffinity[4], std::string());
        const auto links = topoLinks(topo);
        // 6 GPU pairs and 4 × 2 GPU-NIC pairs, NIC#s named by the legend.
        QCOMPARE(links.size(), std::size_t(14));
        QCOMPARE(linkBetween(links, "GPU1", "GPU3"), std::string("NV18"));
        QCOMPARE(linkBetween(links, "GPU3", "GPU1"), std::string("none")); // each pair once
        QCOMPARE(linkBetween(links, "GPU0", "mlx5_0"), std::string("PIX"));
        QCOMPARE(linkBetween(links, "GPU3", "mlx5_1"), std::string("PXB"));
        QCOMPARE(topoLinkKind("NV18"), LinkKind::NvLink);
        QCOMPARE(nvlinkCount("NV18"), 18);
    }

    void olderDriverWithoutNumaOrNicLegend()
    {
        const NvidiaTopology topo = parsed("pcie-2gpu-old-driver.txt");
        const std::vector<std::string> devices{"GPU0", "GPU1", "mlx5_0"};
        QVERIFY(topo.devices == devices);
        QCOMPARE(topo.cpuAffinity[0], std::string("0-11"));
        QCOMPARE(topo.numaAffinity[0], std::string());
        const auto links = topoLinks(topo);
        QCOMPARE(links.size(), std::size_t(3));
        QCOMPARE(linkBetween(links, "GPU0", "GPU1"), std::string("PHB"));
        QCOMPARE(linkBetween(links, "GPU1", "mlx5_0"), std::string("NODE"));
        QCOMPARE(topoLinkKind("PHB"), LinkKind::Pcie);
        QCOMPARE(nvlinkCount("PHB"), 0);
    }

    void terminalCopyWithoutTabsOrNics()
    {
        const NvidiaTopology topo = parsed("terminal-3gpu.txt");
        QCOMPARE(topo.devices.size(), std::size_t(3));
        QCOMPARE(topo.cpuAffinity[1], std::string("16-31"));
        const auto links = topoLinks(topo);
        QCOMPARE(links.size(), std::size_t(3));
        QCOMPARE(linkBetween(links, "GPU0", "GPU2"), std::string("NV4"));
        QCOMPARE(linkBetween(links, "GPU0", "GPU1"), std::string("SYS"));
    }

    void brokenMatricesAreRefused_data()
    {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown link class") << "GPU1\tPHB"
                                            << "GPU1\tNVL"
                                            << "line 3: \"NVL\" between GPU1 and GPU0";
        QTest::newRow("NV without a count") << "GPU1\tPHB"
                                            << "GPU1\tNV"
                                            << "valid: X, NV#";
        QTest::newRow("X off the diagonal") << "GPU1\tPHB"
                                            << "GPU1\t X "
                                            << "own cell";
        QTest::newRow("missing row") << "GPU1\tPHB\t X \tNODE\t0-11\n"
                                     << ""
                                     << "no row for GPU1";
        QTest::newRow("short row") << "GPU1\tPHB\t X \tNODE\t0-11"
                                   << "GPU1\tPHB"
                                   << "expected 3, one per device column";
        QTest::newRow("no header") << "\tGPU0\tGPU1\tmlx5_0\tCPU Affinity"
                                   << "topology"
                                   << "header of device columns";
        QTest::newRow("empty") << ""
                               << ""
                               << "empty";
    }

    void brokenMatricesAreRefused()
    {
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(QString, expected);
        std::string text
            = from.isEmpty() && to.isEmpty() ? std::string() : topoFile("pcie-2gpu-old-driver.txt");
        if (!from.isEmpty()) {
            const std::size_t at = text.find(from.toStdString());
            QVERIFY(at != std::string::npos);
            text.replace(at, std::size_t(from.size()), to.toStdString());
        }
        auto topo = parseNvidiaTopo(text, "node-b.topo");
        QVERIFY(!topo.ok());
        const QString message = QString::fromStdString(topo.error().message);
        QVERIFY2(message.startsWith(QStringLiteral("node-b.topo: ")), qPrintable(message));
        QVERIFY2(message.contains(expected), qPrintable(message));
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestNvidiaTopo)
#include "tst_nvidia_topo.moc"
