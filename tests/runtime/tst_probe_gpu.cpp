// The probe's GPU half (label gpu; skipped with the driver's reason where no GPU is usable):
// every GPU is described, bf16 GEMM and memory bandwidth come out positive and within 1.1× of
// the catalog's figures for a GPU the catalog knows, and hetplan-probe writes them to the file.
#include "core/io/catalog_json.h"
#include "core/io/files.h"
#include "core/io/probe_file.h"
#include "gpu_test_support.h"
#include "runtime/probe/gpu_probe.h"
#include "tests/test_programs.h"
#include "tests/test_registry.h"

#include <QProcess>
#include <QTemporaryDir>

using namespace hetplan;
using namespace hetplan::runtime::probe;

class TestProbeGpu : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { HETPLAN_REQUIRE_GPU(); }

    void everyGpuIsMeasured()
    {
        const std::vector<GemmShape> shapes{{"square", 4096, 4096, 4096}};
        auto gpus = probeGpus(shapes, 3, true);
        QVERIFY2(gpus.ok(), gpus.ok() ? "" : gpus.error().message.c_str());
        QVERIFY(!gpus->empty());
        for (const ProbedGpu &g : *gpus) {
            QVERIFY(!g.name.empty() && g.memoryGiB > 1 && g.smCount > 0);
            QCOMPARE(g.gemm.size(), std::size_t(1));
            QVERIFY(g.gemm[0].tflops.min > 0);
            QVERIFY(g.memory && g.memory->bandwidthGBps.min > 0);
            if (const GpuType *type = builtinGpuCatalog().find(g.catalog)) {
                QVERIFY2(g.gemm[0].tflops.median < 1.1 * type->tflops,
                         qPrintable(QString::number(g.gemm[0].tflops.median)));
                QVERIFY(g.memory->bandwidthGBps.median < 1.1 * type->memoryBandwidthGBps);
            }
        }
    }

    void pairsNeedTwoGpus()
    {
        auto pairs = probeGpuPairs("this-host", {4, 1 << 20}, 3);
        QVERIFY2(pairs.ok(), pairs.ok() ? "" : pairs.error().message.c_str());
        auto gpus = probeGpus({}, 1, true);
        QVERIFY(gpus.ok());
        const std::size_t n = gpus->size();
        // Peer copies and NCCL send/recv for every pair.
        QCOMPARE(pairs->size(), n * (n - 1));
        for (const ProbedPair &p : *pairs)
            QVERIFY(p.bandwidthGBps > 0 && p.latencyUs > 0);
    }

    void probeWritesTheGpus()
    {
        QTemporaryDir dir;
        const QString out = dir.path() + QStringLiteral("/gpu.probe.json");
        QProcess p;
        p.start(hetplan::test::projectProgram("hetplan-probe"),
                {QStringLiteral("--quick"), QStringLiteral("--seq-len"), QStringLiteral("512"),
                 QStringLiteral("--out"), out});
        QVERIFY(p.waitForFinished(280000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        auto text = readTextFile(out.toStdString());
        QVERIFY(text.ok());
        auto probe = parseProbe(*text, "gpu.probe.json");
        QVERIFY(probe.ok());
        QVERIFY(probe->hosts[0].backend == BackendKind::Cuda);
        QVERIFY(!probe->hosts[0].gpus.empty());
        QCOMPARE(probe->hosts[0].gpus[0].gemm.size(), std::size_t(4));
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestProbeGpu)
#include "tst_probe_gpu.moc"
