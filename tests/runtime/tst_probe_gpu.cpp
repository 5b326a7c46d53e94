// The probe's GPU half (label gpu; skipped with the driver's reason where no GPU is usable):
// every GPU is described; the runtime's GEMM (fp32 and bf16 output, both weight layouts) and
// memory bandwidth come out positive, within 1.1× of the catalog's figures for a GPU the
// catalog knows, and steady across repetitions after the warm-up; GPU pairs are ping-pongs; and
// `hetplan-probe --quick` at the default shapes writes them, and each GPU's layer, to the file
// well within a minute.
#include "core/io/catalog_json.h"
#include "core/io/files.h"
#include "core/io/probe_file.h"
#include "gpu_test_support.h"
#include "runtime/cuda/device.h"
#include "runtime/probe/gpu_probe.h"
#include "tests/test_programs.h"
#include "tests/test_registry.h"

#include <QElapsedTimer>
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
        const std::vector<GemmShape> shapes{{"fp32_out", 4096, 4096, 4096, false, false},
                                            {"bf16_out", 4096, 4096, 4096, true, true}};
        auto gpus = probeGpus(shapes, 3, true);
        QVERIFY2(gpus.ok(), gpus.ok() ? "" : gpus.error().message.c_str());
        QVERIFY(!gpus->empty());
        for (const ProbedGpu &g : *gpus) {
            QVERIFY(!g.name.empty() && g.memoryGiB > 1 && g.smCount > 0);
            QCOMPARE(g.gemm.size(), std::size_t(2));
            const GpuType *type = builtinGpuCatalog().find(g.catalog);
            for (const GemmFigure &f : g.gemm) {
                qInfo("GPU %d %s: %.1f TFLOPS (min %.1f, max %.1f)", g.index, f.label.c_str(),
                      f.tflops.median, f.tflops.min, f.tflops.max);
                QVERIFY(f.tflops.min > 0);
                // Sustained clocks after the warm-up: repetitions of 20 ms agree.
                QVERIFY2(f.tflops.max < 1.5 * f.tflops.min, f.label.c_str());
                if (type)
                    QVERIFY2(f.tflops.median < 1.1 * type->tflops,
                             qPrintable(QString::number(f.tflops.median)));
            }
            QVERIFY(g.memory && g.memory->bandwidthGBps.min > 0);
            qInfo("GPU %d memory: %.0f GB/s", g.index, g.memory->bandwidthGBps.median);
            if (type)
                QVERIFY(g.memory->bandwidthGBps.median < 1.1 * type->memoryBandwidthGBps);
        }
    }

    void pairsNeedTwoGpus()
    {
        auto pairs = probeGpuPairs("this-host", {4, 1 << 20}, 3);
        QVERIFY2(pairs.ok(), pairs.ok() ? "" : pairs.error().message.c_str());
        const auto n = std::size_t(hetplan::runtime::cuda::deviceCount().count);
        // Peer copies and NCCL send/recv for every pair.
        QCOMPARE(pairs->size(), n < 2 ? 0 : n * (n - 1));
        for (const ProbedPair &p : *pairs) {
            qInfo("%s GPU %d - GPU %d: latency %.2f us, %.1f GB/s at 1 MiB", p.method.c_str(),
                  p.a.gpu, p.b.gpu, p.latencyUs, p.bandwidthGBps);
            // Half a round trip between two devices: above a microsecond.
            QVERIFY(p.bandwidthGBps > 0 && p.latencyUs > 0.5);
        }
    }

    void probeWritesTheGpus()
    {
        QTemporaryDir dir;
        const QString out = dir.path() + QStringLiteral("/gpu.probe.json");
        QProcess p;
        QElapsedTimer clock;
        clock.start();
        p.start(hetplan::test::projectProgram("hetplan-probe"),
                {QStringLiteral("--quick"), QStringLiteral("--out"), out});
        QVERIFY(p.waitForFinished(280000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const double wallS = double(clock.elapsed()) / 1e3;
        qInfo("hetplan-probe --quick: %.1f s", wallS);
        auto text = readTextFile(out.toStdString());
        QVERIFY(text.ok());
        auto probe = parseProbe(*text, "gpu.probe.json");
        QVERIFY(probe.ok());
        const ProbedHost &host = probe->hosts[0];
        QVERIFY(host.backend == BackendKind::Cuda);
        QVERIFY(!host.gpus.empty());
        QCOMPARE(host.gpus[0].gemm.size(), std::size_t(4));
        QVERIFY(host.cpuGemm.empty()); // a GPU host's devices are its GPUs
        // Every GPU timed the GPU runtime's layer of the default model (docs/probe.md).
        for (const ProbedGpu &g : host.gpus)
            QVERIFY2(g.layer && g.layer->method == "runtime-cuda-layer"
                         && g.layer->points.size() == 3,
                     qPrintable(QString::number(g.index)));
        // The default shapes (Llama-2 7B, 1024 tokens) on every GPU, and the pairs between
        // them, within the launcher's preflight budget.
        QVERIFY2(wallS < 10 + 3.0 * double(host.gpus.size() * host.gpus.size()),
                 qPrintable(QString::number(wallS)));
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestProbeGpu)
#include "tst_probe_gpu.moc"
