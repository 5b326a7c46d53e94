// hetplan.probe/1: a probe survives writing and reading, bad files are refused with the file,
// the field and what would be valid, implausible figures are flagged (never dropped), and
// drivers' GPU names find their catalog types.
#include "core/catalog/catalog.h"
#include "core/io/probe_file.h"
#include "tests/test_registry.h"

#include <QTest>

#include <algorithm>
#include <string>

using namespace hetplan;

namespace {

Spread spread(double median, double min, double max, int repetitions = 5)
{
    return {repetitions, median, min, max};
}

SizePoint point(double bytes, double timeUs)
{
    return {bytes, spread(timeUs, timeUs * 0.9, timeUs * 1.2),
            spread(bytes / timeUs / 1e3, bytes / timeUs / 1e3 / 1.2, bytes / timeUs / 1e3 / 0.9)};
}

ProbedPair tcpPair(std::vector<SizePoint> sizes)
{
    ProbedPair p;
    p.a = {"node-a", -1};
    p.b = {"node-b", -1};
    p.method = "gloo-tcp";
    p.sizes = std::move(sizes);
    p.bandwidthGBps = p.sizes.back().bandwidthGBps.median;
    p.latencyUs = p.sizes.front().timeUs.median;
    return p;
}

// Two hosts: a CPU host and a GPU host with two H100s, NVLink between them, a NIC, and
// every kind of pair.
Probe sampleProbe()
{
    Probe p;
    p.settings = {"llama2-7b", 1, 2048, 2, 10, false};
    ProbedHost cpu;
    cpu.name = "node-a";
    cpu.backend = BackendKind::Gloo;
    cpu.cpuModel = "AMD EPYC 7763 64-Core Processor";
    cpu.cpuCores = 128;
    cpu.blasThreads = 1;
    cpu.cpuGemm = {{"qkv", 2048, 6144, 4096, "fp32", "openblas-sgemm", spread(0.09, 0.08, 0.1)}};
    cpu.cpuMemory = MemoryFigure{"cpu-triad", 512, spread(21.5, 20, 23)};
    cpu.noGpuReason = "built without CUDA";
    LayerFigure layer;
    layer.method = "runtime-cpu-layer";
    layer.model = "gpt3-350m";
    layer.modelShape = "h128 f512 a16 kv16 v6282 gelu";
    layer.scale = 8;
    layer.seqLen = 128;
    layer.points = {{1, spread(0.0123, 0.012, 0.0125), spread(0.025, 0.024, 0.026)},
                    {2, spread(0.02, 0.019, 0.021), spread(0.04, 0.039, 0.041)},
                    {8, spread(0.07, 0.069, 0.071), spread(0.14, 0.139, 0.141)}};
    layer.optimizerSPerParam = spread(2e-9, 1.9e-9, 2.1e-9);
    layer.embeddingForwardSPerToken = spread(1e-7, 0.9e-7, 1.1e-7);
    layer.embeddingBackwardSPerToken = spread(2e-7, 1.9e-7, 2.1e-7);
    layer.headForwardSPerToken = spread(3e-6, 2.9e-6, 3.1e-6);
    layer.headBackwardSPerToken = spread(6e-6, 5.9e-6, 6.1e-6);
    cpu.cpuLayer = layer;
    ProbedHost gpuHost;
    gpuHost.name = "node-b";
    gpuHost.rank = 1;
    gpuHost.backend = BackendKind::Cuda;
    gpuHost.cpuCores = 64;
    gpuHost.blasThreads = 1;
    for (int i = 0; i < 2; ++i) {
        ProbedGpu g;
        g.index = i;
        g.name = "NVIDIA H100 80GB HBM3";
        g.catalog = "H100-80G";
        g.memoryGiB = 79.1;
        g.smCount = 132;
        g.gemm = {{"mlp_up", 2048, 11008, 4096, "bf16", "cublas-gemmex", spread(650, 640, 662)}};
        g.memory = MemoryFigure{"cuda-triad", 256, spread(2900, 2850, 2950)};
        gpuHost.gpus.push_back(g);
    }
    LayerFigure gpuLayer = layer;
    gpuLayer.method = "runtime-cuda-layer";
    gpuLayer.model = "llama2-7b";
    gpuLayer.modelShape = "h4096 f11008 a32 kv32 v32000 swiglu";
    gpuLayer.scale = 1;
    gpuLayer.seqLen = 1024;
    gpuLayer.points = {{1, spread(0.00042, 0.00041, 0.00043), spread(0.0009, 0.00089, 0.00091)},
                       {4, spread(0.0016, 0.0015, 0.0017), spread(0.0034, 0.0033, 0.0035)}};
    gpuHost.gpus[0].layer = gpuLayer;
    gpuHost.topology = {{"GPU0", "GPU1", "NV18"}, {"GPU0", "mlx5_0", "PIX"}};
    p.hosts = {cpu, gpuHost};
    p.pairs.push_back(tcpPair({point(4, 30), point(65536, 90), point(16 << 20, 14000)}));
    ProbedPair nvlink = tcpPair({point(4, 8), point(256 << 20, 700)});
    nvlink.a = {"node-b", 0};
    nvlink.b = {"node-b", 1};
    nvlink.method = "cuda-peer-copy";
    nvlink.sweeps = 2; // its first sweep was not plausible
    p.pairs.push_back(nvlink);
    return p;
}

bool hasFlag(const Probe &p, std::string_view path, std::string_view check)
{
    return std::ranges::any_of(
        p.flags, [&](const PlausibilityFlag &f) { return f.path == path && f.check == check; });
}

// `text` with the first `from` replaced by `to`; fails the test when `from` is absent.
std::string edited(std::string text, const std::string &from, const std::string &to)
{
    const std::size_t at = text.find(from);
    if (at == std::string::npos)
        qFatal("fixture lacks %s", from.c_str());
    return text.replace(at, from.size(), to);
}

} // namespace

class TestProbeFile : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void roundTripKeepsEveryFigure()
    {
        const Probe probe = sampleProbe();
        QVERIFY(plausibilityFlags(probe).empty());
        const std::string text = writeProbe(probe);
        auto read = parseProbe(text, "cluster.probe.json");
        QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
        QVERIFY(*read == probe);
        QCOMPARE(writeProbe(*read), text);
    }

    void spreadIsMedianMinMax()
    {
        QCOMPARE(spreadOf({3, 1, 2}), spread(2, 1, 3, 3));
        QCOMPARE(spreadOf({4, 1, 2, 10}), spread(3, 1, 10, 4));
    }

    void refusesBadFilesNamingFieldAndValidValues_data()
    {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown field") << "\"cpu_cores\""
                                       << "\"cpu_core\""
                                       << "hosts[0]";
        QTest::newRow("negative bandwidth") << "\"bandwidth_GBps\": 14.6"
                                            << "\"bandwidth_GBps\": -1"
                                            << "pairs[0].bandwidth_GBps";
        QTest::newRow("min above median") << "\"min\": 0.08"
                                          << "\"min\": 0.5"
                                          << "min <= median <= max";
        QTest::newRow("unknown backend") << "\"backend\": \"cpu\""
                                         << "\"backend\": \"tpu\""
                                         << "valid: cpu, cuda";
        QTest::newRow("sizes out of order") << "\"bytes\": 65536.0"
                                            << "\"bytes\": 2.0"
                                            << "ascending order";
        QTest::newRow("newer major version") << "hetplan.probe/1"
                                             << "hetplan.probe/2"
                                             << "hetplan.probe/2";
        QTest::newRow("no repetitions") << "\"repetitions\": 5"
                                        << "\"repetitions\": 0"
                                        << "valid: 1..";
        QTest::newRow("layer micro-batches out of order") << "\"micro_batch\": 8"
                                                          << "\"micro_batch\": 2"
                                                          << "ascending order";
        QTest::newRow("negative layer time") << "\"median\": 0.0123"
                                             << "\"median\": -1"
                                             << "cpu_layer.micro_batches[0].forward_s";
        QTest::newRow("layer time above a day") << "\"max\": 0.0125"
                                                << "\"max\": 1e6"
                                                << "is not a layer's";
        QTest::newRow("unknown layer field") << "\"model_shape\""
                                             << "\"shape\""
                                             << "hosts[0].cpu_layer";
        QTest::newRow("layer at scale 0") << "\"scale\": 8"
                                          << "\"scale\": 0"
                                          << "cpu_layer.scale";
        QTest::newRow("negative GPU layer time")
            << "\"median\": 0.00042"
            << "\"median\": -1"
            << "hosts[1].gpus[0].layer.micro_batches[0].forward_s";
        QTest::newRow("GPU layer at seq-len 0") << "\"seq_len\": 1024"
                                                << "\"seq_len\": 0"
                                                << "hosts[1].gpus[0].layer.seq_len";
        QTest::newRow("no sweep") << "\"sweeps\": 2"
                                  << "\"sweeps\": 0"
                                  << "pairs[1].sweeps";
        QTest::newRow("GPU layer micro-batches out of order")
            << "\"micro_batch\": 4"
            << "\"micro_batch\": 1"
            << "hosts[1].gpus[0].layer.micro_batches[1].micro_batch";
    }

    void refusesBadFilesNamingFieldAndValidValues()
    {
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(QString, expected);
        // The writer prints 14.6 GB/s as 14.563…; pin the figure first so the edit finds it.
        Probe probe = sampleProbe();
        probe.pairs[0].bandwidthGBps = 14.6;
        const std::string text = edited(writeProbe(probe), from.toStdString(), to.toStdString());
        auto read = parseProbe(text, "bad.probe.json");
        QVERIFY(!read.ok());
        const QString message = QString::fromStdString(read.error().message);
        QVERIFY2(message.startsWith(QStringLiteral("bad.probe.json")), qPrintable(message));
        QVERIFY2(message.contains(expected), qPrintable(message));
    }

    void refusesUnknownFlagKinds()
    {
        Probe probe = sampleProbe();
        probe.flags.push_back({"pairs[0].latency_us", "too-slow", "a person's note"});
        auto read = parseProbe(writeProbe(probe), "flags.probe.json");
        QVERIFY(!read.ok());
        QVERIFY2(read.error().message.find("flags[0].check") != std::string::npos
                     && read.error().message.find("non-positive, not-monotone, above-peak")
                            != std::string::npos,
                 read.error().message.c_str());
    }

    void timeFallingWithMessageSizeIsFlagged()
    {
        Probe probe = sampleProbe();
        // 1 MiB in less time than 64 KiB: a timer or a cache, not a network.
        probe.pairs[0] = tcpPair(
            {point(4, 30), point(65536, 900), point(1 << 20, 200), point(16 << 20, 14000)});
        const auto flags = plausibilityFlags(probe);
        QCOMPARE(flags.size(), std::size_t(1));
        QCOMPARE(flags[0].path, std::string("pairs[0].sizes[2].time_us"));
        QCOMPARE(flags[0].check, std::string("not-monotone"));
        // Jitter among small messages is not flagged.
        probe.pairs[0] = tcpPair({point(4, 30), point(64, 27), point(16 << 20, 14000)});
        QVERIFY(plausibilityFlags(probe).empty());
    }

    void nonPositiveAndAbovePeakFiguresAreFlagged()
    {
        Probe probe = sampleProbe();
        probe.hosts[0].cpuMemory->bandwidthGBps = spread(20, 0, 22);
        // H100's bf16 peak in the catalog is 989 TFLOPS; 1200 is a timing error.
        probe.hosts[1].gpus[1].gemm[0].tflops = spread(1200, 1100, 1300);
        probe.hosts[1].gpus[0].gemm[0].tflops = spread(1050, 1000, 1060); // within 1.1×
        const auto flags = plausibilityFlags(probe);
        Probe flagged = probe;
        flagged.flags = flags;
        QCOMPARE(flags.size(), std::size_t(2));
        QVERIFY(hasFlag(flagged, "hosts[0].cpu_memory.bandwidth_GBps", "non-positive"));
        QVERIFY(hasFlag(flagged, "hosts[1].gpus[1].gemm[0].tflops", "above-peak"));
    }

    void readingFlagsWhatTheFileLeftUnflagged()
    {
        Probe probe = sampleProbe();
        probe.pairs[0].sizes[1].timeUs = spread(5, 4, 6); // below 4 bytes' fastest of 27 us
        const std::string text = writeProbe(probe);       // written without flags
        auto read = parseProbe(text, "hand-edited.probe.json");
        QVERIFY(read.ok());
        QVERIFY(hasFlag(*read, "pairs[0].sizes[1].time_us", "not-monotone"));
        QCOMPARE(read->pairs[0].sizes[1].timeUs, spread(5, 4, 6)); // kept, not dropped
        // A flag the file has is not added twice.
        auto again = parseProbe(writeProbe(*read), "again.probe.json");
        QVERIFY(again.ok());
        QCOMPARE(again->flags.size(), read->flags.size());
    }

    void driverNamesFindCatalogTypes_data()
    {
        QTest::addColumn<QString>("device");
        QTest::addColumn<double>("memoryGiB");
        QTest::addColumn<QString>("catalog");
        QTest::newRow("A100 80GB") << "NVIDIA A100-SXM4-80GB" << 79.2 << "A100-80G";
        QTest::newRow("A100 40GB") << "NVIDIA A100-SXM4-40GB" << 39.4 << "A100-40G";
        QTest::newRow("A10 is not A100") << "NVIDIA A10" << 22.1 << "A10-24G";
        QTest::newRow("H100") << "NVIDIA H100 80GB HBM3" << 79.1 << "H100-80G";
        QTest::newRow("A800 PCIe") << "NVIDIA A800 80GB PCIe" << 79.3 << "A800-80G-PCIe";
        QTest::newRow("A800 SXM") << "NVIDIA A800-SXM4-80GB" << 79.3 << "A800-80G";
        QTest::newRow("RTX 4090") << "NVIDIA GeForce RTX 4090" << 23.6 << "RTX4090-24G";
        QTest::newRow("RTX 3090 Ti") << "NVIDIA GeForce RTX 3090 Ti" << 23.7 << "RTX3090Ti-24G";
        QTest::newRow("RTX A6000") << "NVIDIA RTX A6000" << 47.5 << "RTXA6000-48G";
        QTest::newRow("L4 is not L40S") << "NVIDIA L4" << 22.0 << "L4-24G";
        QTest::newRow("unknown GPU") << "NVIDIA B200" << 178.0 << "";
        QTest::newRow("memory disagrees") << "NVIDIA A100-PCIE-20GB" << 19.5 << "";
    }

    void driverNamesFindCatalogTypes()
    {
        QFETCH(QString, device);
        QFETCH(double, memoryGiB);
        QFETCH(QString, catalog);
        QCOMPARE(QString::fromStdString(catalogGpuFor(device.toStdString(), memoryGiB)), catalog);
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestProbeFile)
#include "tst_probe_file.moc"
