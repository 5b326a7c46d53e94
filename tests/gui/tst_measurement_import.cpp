// File › Import Measurements: a folder of generated measurements opens as a new, unsaved
// document laid out around its switch, the report names where each figure came from, and the
// Inspector marks the measured fields; a bad file leaves the document as it was.
#include "../core/import_fixtures.h"
#include "canvas/cluster_scene.h"
#include "inspector/inspector.h"
#include "measurement_import.h"
#include "model/cluster_model.h"
#include "model/document.h"
#include "tests/test_registry.h"
#include "window_test_support.h"

#include <QComboBox>
#include <QDialog>
#include <QFile>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTemporaryDir>
#include <QTest>

#include <set>

using namespace hetplan;
using namespace hetplan::gui;
using namespace hetplan::fixtures;

namespace {

void writeFile(const QString &path, const std::string &text)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text.data(), qint64(text.size()));
}

// Three CPU hosts, one pair slower than the others.
std::string threeHostProbe()
{
    Probe p;
    p.settings = {"llama2-7b", 1, 1024, 1, 10, false};
    for (int r = 0; r < 3; ++r) {
        ProbedHost h;
        h.name = "host-" + std::to_string(r + 1);
        h.rank = r;
        h.backend = BackendKind::Gloo;
        h.cpuModel = "Test CPU";
        h.cpuCores = 4;
        h.blasThreads = 1;
        h.cpuGemm = layerGemms("fp32", "openblas-sgemm", 0.05);
        h.cpuMemory = MemoryFigure{"cpu-triad", 64, spread(12)};
        h.noGpuReason = "built without CUDA";
        p.hosts.push_back(h);
    }
    p.pairs = {probedPair({"host-1"}, {"host-2"}, "gloo-tcp", 1.2, 40),
               probedPair({"host-2"}, {"host-3"}, "gloo-tcp", 1.2, 40),
               probedPair({"host-1"}, {"host-3"}, "gloo-tcp", 0.4, 40)};
    return writeProbe(p);
}

bool importAndWait(MainWindow &window, const QStringList &paths)
{
    QSignalSpy finished(window.measurementImport(), &MeasurementImport::finished);
    window.measurementImport()->importPaths(paths);
    return finished.wait(30000) && finished.first().first().toBool();
}

} // namespace

class TestMeasurementImport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { test::useTestSettings(); }

    void folderOpensAsLaidOutDocument()
    {
        QTemporaryDir dir;
        writeFile(dir.filePath(QStringLiteral("cluster.probe.json")), threeHostProbe());
        writeFile(dir.filePath(QStringLiteral("README.txt")), "three hosts, Tuesday\n");
        MainWindow window;
        window.show();
        QVERIFY(test::fileAction(window, QStringLiteral("Import &Measurements…")));
        QVERIFY(test::fileAction(window, QStringLiteral("Import Measurement &Folder…")));
        QVERIFY2(importAndWait(window, {dir.path()}),
                 qPrintable(window.measurementImport()->lastReport()));

        const Cluster &c = window.document()->clusterModel()->cluster();
        QCOMPARE(c.machines.size(), std::size_t(3));
        QCOMPARE(c.switches.size(), std::size_t(1));
        QVERIFY(window.document()->isModified()); // new and unsaved
        QVERIFY(window.document()->filePath().isEmpty());
        // Laid out: every node somewhere else, not piled at the origin.
        std::set<std::pair<double, double>> places;
        for (const Machine &m : c.machines)
            places.insert({m.position.x, m.position.y});
        places.insert({c.switches[0].position.x, c.switches[0].position.y});
        QCOMPARE(places.size(), std::size_t(4));

        auto *report = window.findChild<QDialog *>(QStringLiteral("importReport"));
        QVERIFY(report && report->isVisible());
        const QString text = window.measurementImport()->reportView()->toPlainText();
        QVERIFY2(text.contains(QStringLiteral("/links/host-1/switch/bandwidth_GBps = 1.19")),
                 qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("README.txt: skipped")));

        // The Inspector marks what was measured, and only that.
        auto *inspector = window.findChild<Inspector *>();
        QVERIFY(inspector);
        const ClusterModel *model = window.document()->clusterModel();
        inspector->setSelection({model->linksOf(model->nodeByName("host-1")).front()});
        auto *bandwidth = inspector->findChild<QLineEdit *>(QStringLiteral("linkBandwidth"));
        QVERIFY(bandwidth && bandwidth->isVisibleTo(inspector));
        QVERIFY2(bandwidth->toolTip().contains(QStringLiteral("Measured: ")),
                 qPrintable(bandwidth->toolTip()));
        QVERIFY(bandwidth->toolTip().contains(QStringLiteral("cluster.probe.json")));
        inspector->setSelection({model->nodeByName("host-1")});
        auto *tflops = inspector->findChild<QLineEdit *>(QStringLiteral("customTflops"));
        QVERIFY(tflops->toolTip().contains(QStringLiteral("openblas-sgemm")));
        auto *intra = inspector->findChild<QLineEdit *>(QStringLiteral("intraBandwidth"));
        QVERIFY(intra->toolTip().isEmpty()); // one rank per host: nothing measured inside
        QVERIFY(!intra->property("measured").toBool());
    }

    void badFileKeepsTheDocument()
    {
        QTemporaryDir dir;
        LogSpec spec;
        spec.ranks = {{"node-a", 0}, {"node-a", 1}};
        std::string log = ncclLog(spec);
        log.replace(log.find("  node-a device  1"), 18, "  node-a device 1x");
        const QString path = dir.filePath(QStringLiteral("all_reduce_perf.log"));
        writeFile(path, log);
        MainWindow window;
        QVERIFY(window.openExample(QStringLiteral("case-study")));
        QVERIFY(!importAndWait(window, {path}));
        QCOMPARE(window.document()->clusterModel()->cluster().name, std::string("case-study"));
        QVERIFY2(window.measurementImport()->lastReport().contains(
                     QStringLiteral("all_reduce_perf.log: line ")),
                 qPrintable(window.measurementImport()->lastReport()));
    }
};

HETPLAN_TEST_MAIN(TestMeasurementImport)
#include "tst_measurement_import.moc"
