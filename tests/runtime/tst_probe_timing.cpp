// How the probe times a figure, without a GPU: repetitions sized to last their target, a
// warm-up that outlasts a boost clock, the untimed first call, the statistics of a ping-pong,
// and the GEMM shapes carrying the GPU runtime's layouts and output types.
#include "core/io/catalog_json.h"
#include "runtime/probe/probe_shapes.h"
#include "runtime/probe/probe_timing.h"
#include "tests/test_registry.h"

#include <QTest>

#include <numeric>

using namespace hetplan;
using namespace hetplan::runtime::probe;

namespace {

// A device on a made-up clock: the first call costs `firstS` (lazy loading), then each call
// `boostS` until `boostForS` of work has run and `sustainedS` after that.
struct FakeDevice
{
    double firstS = 0.1;
    double boostS = 1e-3;
    double sustainedS = 1.25e-3;
    double boostForS = 0.2;

    double workS = 0;
    std::vector<int> batches; // calls per timeCalls, in order

    Result<double> timeCalls(int calls)
    {
        batches.push_back(calls);
        double spentS = 0;
        for (int c = 0; c < calls; ++c) {
            const double callS = workS == 0 ? firstS : workS < boostForS ? boostS : sustainedS;
            workS += callS;
            spentS += callS;
        }
        return spentS / calls;
    }
};

} // namespace

class TestProbeTiming : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void callsPerRepetitionLastAtLeastTheTarget_data()
    {
        QTest::addColumn<double>("oneCallS");
        QTest::addColumn<double>("targetS");
        QTest::addColumn<int>("calls");
        QTest::newRow("exact") << 1e-3 << 0.02 << 20;
        QTest::newRow("rounded up") << 3e-3 << 0.02 << 7;
        QTest::newRow("a call longer than the target") << 1.0 << 0.05 << 1;
        QTest::newRow("no target: one call") << 1e-3 << 0.0 << 1;
        QTest::newRow("unresolved call") << 0.0 << 0.02 << kMaxCallsPerRepetition;
        QTest::newRow("capped") << 1e-9 << 0.05 << kMaxCallsPerRepetition;
    }

    void callsPerRepetitionLastAtLeastTheTarget()
    {
        QFETCH(double, oneCallS);
        QFETCH(double, targetS);
        QFETCH(int, calls);
        QCOMPARE(callsPerRepetition(oneCallS, targetS), calls);
    }

    void gpuPlansWarmUpOncePerDevice()
    {
        const TimingPlan first = gpuTiming(true, true);
        QCOMPARE(first.warmUpS, kSustainedWarmUpS);
        QCOMPARE(first.repetitionS, kQuickRepetitionS);
        const TimingPlan later = gpuTiming(false, false);
        QCOMPARE(later.warmUpS, kRepetitionS);
        QCOMPARE(later.repetitionS, kRepetitionS);
        // The bounds: at least 200 ms of warm-up, repetitions of 20 to 50 ms.
        QVERIFY(kSustainedWarmUpS >= 0.2);
        QVERIFY(kQuickRepetitionS >= 0.02 && kRepetitionS <= 0.05);
        QVERIFY(linkTiming().repetitionS >= 0.02);
    }

    // The boost phase and the first call fall in the warm-up, every repetition sees the
    // sustained clock and lasts at least its target.
    void repetitionsTimeTheSustainedClock()
    {
        FakeDevice device;
        const TimingPlan plan = gpuTiming(true, true);
        auto seconds = timeRepetitions(plan, 5, [&](int calls) { return device.timeCalls(calls); });
        QVERIFY(seconds.ok());
        QCOMPARE(seconds->size(), std::size_t(5));
        for (double s : *seconds)
            QVERIFY2(qAbs(s - device.sustainedS) < 1e-12, qPrintable(QString::number(s)));
        QCOMPARE(device.batches.front(), 1); // the untimed first call
        const std::vector<int> timed(device.batches.end() - 5, device.batches.end());
        for (int calls : timed)
            QVERIFY(calls * device.sustainedS >= plan.repetitionS);
        // Warm-up: everything but the timed repetitions, at least the plan's.
        const int warmUpCalls
            = std::accumulate(device.batches.begin(), device.batches.end() - 5, 0);
        QVERIFY(warmUpCalls > 1);
        QVERIFY(device.workS - 5 * timed.front() * device.sustainedS >= plan.warmUpS);
    }

    void noWarmUpMeansOneUntimedCall()
    {
        FakeDevice device;
        auto seconds
            = timeRepetitions(TimingPlan{}, 3, [&](int calls) { return device.timeCalls(calls); });
        QVERIFY(seconds.ok());
        QCOMPARE(device.batches, (std::vector<int>{1, 1, 1, 1}));
        int bodyCalls = 0;
        const std::vector<double> host = timedRepetitions(4, [&] { ++bodyCalls; });
        QCOMPARE(host.size(), std::size_t(4));
        QCOMPARE(bodyCalls, 5);
    }

    void aClockThatNeverMovesStillEnds()
    {
        int batches = 0;
        auto seconds = timeRepetitions(gpuTiming(false, true), 2, [&](int) -> Result<double> {
            ++batches;
            return 0.0;
        });
        QVERIFY(seconds.ok());
        QCOMPARE(seconds->size(), std::size_t(2));
        QCOMPARE(batches, 1 + kMaxWarmUpBatches + 2);
    }

    void aFailedCallEndsTheTiming()
    {
        int batches = 0;
        auto seconds = timeRepetitions(gpuTiming(true, true), 3, [&](int) -> Result<double> {
            if (++batches == 3)
                return Error{ErrorKind::Internal, "cudaEventRecord failed"};
            return 1e-3;
        });
        QVERIFY(!seconds.ok());
        QCOMPARE(seconds.error().message, std::string("cudaEventRecord failed"));
        QCOMPARE(batches, 3);
    }

    // A ping-pong's one-way time is half the round trip; median, min and max of the samples.
    void roundTripsAreHalvedAndSummarized()
    {
        const SizePoint p = roundTripPoint(4, {20e-6, 10e-6, 40e-6});
        QCOMPARE(p.bytes, 4.0);
        QCOMPARE(p.timeUs.repetitions, 3);
        QCOMPARE(p.timeUs.median, 10.0);
        QCOMPARE(p.timeUs.min, 5.0);
        QCOMPARE(p.timeUs.max, 20.0);
        // 4 bytes in 10 µs one way.
        QCOMPARE(p.bandwidthGBps.median, 4 / 10e-6 / 1e9);
        const Spread tflops = rateSpread({0.5, 0.25, 1.0}, 2.0);
        QCOMPARE(tflops.median, 4.0);
        QCOMPARE(tflops.min, 2.0);
        QCOMPARE(tflops.max, 8.0);
    }

    // The runtime's forward pass: q, k, v, gate and up weights stored out × in (read
    // transposed); q, k and the summed partials of attention-out and MLP-down in fp32, v, gate
    // and up in bf16.
    void gemmShapesCarryTheRuntimesLayouts()
    {
        const ModelSpec *model = builtinModelCatalog().find("llama2-7b");
        QVERIFY(model);
        const std::vector<GemmShape> shapes = layerGemmShapes(*model, 1, 1024, 1);
        QCOMPARE(shapes.size(), std::size_t(4));
        const bool transposed[] = {true, false, true, false};
        const bool bf16Out[] = {false, false, true, false};
        for (std::size_t i = 0; i < shapes.size(); ++i) {
            QCOMPARE(shapes[i].m, 1024);
            QCOMPARE(shapes[i].weightsTransposed, transposed[i]);
            QCOMPARE(shapes[i].outputBf16, bf16Out[i]);
        }
        QCOMPARE(shapes[0].label, std::string("qkv"));
        QCOMPARE(shapes[2].label, std::string("mlp_up"));
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestProbeTiming)
#include "tst_probe_timing.moc"
