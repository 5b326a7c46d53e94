// The probe's GPU half on two emulated GPUs (probe_emulation.cpp), where no GPU is: every GPU
// gets the runtime's GEMM call at each shape (its layouts and output type, as cuBLAS receives
// them) and a triad; every GPU pair is a ping-pong, each message answered by one of the same
// size the other way, for peer copies and NCCL alike; a sweep that is not plausible is measured
// again; a failure names the call and its place.
#include "runtime/probe/gpu_probe.h"
#include "tests/runtime/probe_emulation.h"
#include "tests/test_registry.h"

#include <QTest>

using namespace hetplan;
using namespace hetplan::runtime::probe;
namespace emulated = hetplan::test::emulated;

class TestProbeEmulated : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void gpusAreMeasuredWithTheRuntimesGemm()
    {
        const std::vector<GemmShape> shapes{{"qkv", 8, 24, 16, true, false},
                                            {"mlp_up", 8, 32, 16, true, true},
                                            {"attn_out", 8, 16, 12, false, false}};
        emulated::trace() = {};
        auto gpus = probeGpus(shapes, 2, true);
        QVERIFY2(gpus.ok(), gpus.ok() ? "" : gpus.error().message.c_str());
        QCOMPARE(gpus->size(), std::size_t(2));
        for (const ProbedGpu &g : *gpus) {
            QCOMPARE(g.name, std::string("Emulated GPU"));
            QCOMPARE(g.gemm.size(), shapes.size());
            for (std::size_t i = 0; i < shapes.size(); ++i) {
                QCOMPARE(g.gemm[i].label, shapes[i].label);
                QCOMPARE(g.gemm[i].n, shapes[i].n);
                QCOMPARE(g.gemm[i].tflops.repetitions, 2);
                QVERIFY(g.gemm[i].tflops.min > 0);
            }
            QVERIFY(g.memory && g.memory->bandwidthGBps.min > 0);
        }
        // Row-major C = A·op(B) reaches cuBLAS as Cᵀ = op(B)ᵀ·Aᵀ: B first, n × m × k.
        const emulated::GemmCall expected[] = {{true, false, 24, 8, 16, 16, 16, 24, false},
                                               {true, false, 32, 8, 16, 16, 16, 32, true},
                                               {false, false, 16, 8, 12, 16, 12, 16, false}};
        QCOMPARE(emulated::trace().gemms,
                 std::vector<emulated::GemmCall>(std::begin(expected), std::end(expected)));
        // Per GPU and shape: the untimed call, a warm-up and two repetitions at least.
        QVERIFY(emulated::trace().gemmCalls >= 2 * 3 * 4);
    }

    void pairsArePingPongs()
    {
        emulated::trace() = {};
        auto pairs = probeGpuPairs("host", {4, 4096}, 2);
        QVERIFY2(pairs.ok(), pairs.ok() ? "" : pairs.error().message.c_str());
        QCOMPARE(pairs->size(), std::size_t(2));
        QCOMPARE((*pairs)[0].method, std::string("cuda-peer-copy"));
        QCOMPARE((*pairs)[1].method, std::string("nccl-sendrecv"));
        for (const ProbedPair &p : *pairs) {
            QCOMPARE(p.a.gpu, 0);
            QCOMPARE(p.b.gpu, 1);
            QCOMPARE(p.sizes.size(), std::size_t(2));
            QCOMPARE(p.sizes[0].timeUs.repetitions, 2);
            QVERIFY(p.latencyUs > 0 && p.bandwidthGBps > 0);
        }
        // Every message 0 → 1 is answered 1 → 0 with the same size.
        const std::vector<emulated::Message> &messages = emulated::trace().messages;
        QVERIFY(messages.size() > 8);
        QCOMPARE(messages.size() % 2, std::size_t(0));
        for (std::size_t i = 0; i < messages.size(); i += 2) {
            const emulated::Message &ping = messages[i];
            const emulated::Message &pong = messages[i + 1];
            QVERIFY(ping.from == 0 && ping.to == 1);
            QVERIFY(pong.from == 1 && pong.to == 0);
            QCOMPARE(pong.kind, ping.kind);
            QCOMPARE(pong.bytes, ping.bytes);
        }
        QCOMPARE(messages.front().kind, std::string("peer"));
        QCOMPARE(messages.back().kind, std::string("nccl"));
    }

    // The host stalls every 4-byte copy of the first sweep for 2 ms, so 4 KiB looks faster than
    // 4 bytes (not-monotone): the pair is swept again, and the second sweep is written.
    void aStalledSweepIsMeasuredAgain()
    {
        emulated::stall() = {4, 2e-3};
        auto pairs = probeGpuPairs("host", {4, 4096}, 2);
        emulated::stall() = {};
        QVERIFY2(pairs.ok(), pairs.ok() ? "" : pairs.error().message.c_str());
        const ProbedPair &copies = (*pairs)[0];
        QCOMPARE(copies.method, std::string("cuda-peer-copy"));
        QCOMPARE(copies.sweeps, 2);
        QVERIFY(plausibilityFlags(copies, "pairs[0]").empty());
        QVERIFY2(copies.latencyUs < 1000, qPrintable(QString::number(copies.latencyUs)));
    }

    void failuresNameTheCallAndItsPlace()
    {
        auto gpus = probeGpus({{"huge", 1 << 16, 1 << 16, 1 << 16, false, false}}, 1, true);
        QVERIFY(!gpus.ok());
        const std::string &message = gpus.error().message;
        QVERIFY2(message.starts_with("GPU 0: cudaMalloc of "), message.c_str());
        QVERIFY2(message.find("for huge failed at runtime/cuda/device_buffer.cpp:")
                     != std::string::npos,
                 message.c_str());
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestProbeEmulated)
#include "tst_probe_emulated.moc"
