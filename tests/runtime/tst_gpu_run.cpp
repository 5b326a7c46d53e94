// `hetplan-cli run --backend cuda` (label gpu; skipped where no GPU is usable): a one-stage plan
// on one GPU trains like the CPU run of the same plan, seed and data. The GPU model keeps
// weights and activations in bf16 (8 significant bits, a relative rounding of 2^-9) with fp32
// accumulation, so its losses agree with the fp32 CPU run to about a percent, not to ulps; a
// wrong gradient or a missed update would move the loss of the later iterations by far more.
#include "core/io/files.h"
#include "core/io/measurement_json.h"
#include "gpu_test_support.h"
#include "run_test_support.h"
#include "tests/test_registry.h"

#include <QTemporaryDir>

#include <cmath>

using namespace hetplan;
using namespace hetplan::runtime::test;

namespace {

constexpr double kBf16LossRelative = 2e-2;
constexpr int kIterations = 3;

Measurement runOn(const QString &backend, const QString &out)
{
    const CliRun run = runCli({QStringLiteral("run"), QStringLiteral("--plan"),
                               runtimeData("one-stage.plan.json"), QStringLiteral("--model"),
                               runtimeData("tiny.model.json"), QStringLiteral("--iterations"),
                               QString::number(kIterations), QStringLiteral("--backend"), backend,
                               QStringLiteral("--out"), out});
    if (run.exitCode != 0)
        qFatal("run --backend %s failed: %s", qPrintable(backend), qPrintable(run.out + run.err));
    auto text = readTextFile(out.toStdString());
    if (!text)
        qFatal("%s", text.error().message.c_str());
    auto measured = parseMeasurement(*text, out.toStdString());
    if (!measured)
        qFatal("%s", measured.error().message.c_str());
    return *measured;
}

} // namespace

class TestGpuRun : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { HETPLAN_REQUIRE_GPU(); }

    void lossMatchesTheCpuRun()
    {
        QTemporaryDir dir;
        const Measurement cpu = runOn(QStringLiteral("gloo"), dir.filePath(QStringLiteral("c")));
        const Measurement gpu = runOn(QStringLiteral("cuda"), dir.filePath(QStringLiteral("g")));
        QVERIFY(gpu.run.backend == BackendKind::Cuda);
        QCOMPARE(gpu.loss.size(), std::size_t(kIterations));
        for (int i = 0; i < kIterations; ++i) {
            const double expected = cpu.loss[std::size_t(i)];
            const double actual = gpu.loss[std::size_t(i)];
            QVERIFY2(std::abs(actual - expected) <= kBf16LossRelative * std::abs(expected),
                     qPrintable(QStringLiteral("iteration %1: GPU loss %2, CPU loss %3")
                                    .arg(i)
                                    .arg(actual, 0, 'g', 9)
                                    .arg(expected, 0, 'g', 9)));
        }
        // Training moved the loss on the GPU as it did on the CPU.
        QVERIFY(gpu.loss.back() < gpu.loss.front());
        QCOMPARE(gpu.ranks.size(), std::size_t(1));
        QVERIFY(gpu.ranks.front().peakMemoryGiB > 0);
        QVERIFY(gpu.ranks.front().predictedMemoryGiB > 0);
        QCOMPARE(cpu.ranks.front().predictedMemoryGiB, 0.0);
        QVERIFY(gpu.breakdown.computeS > 0);
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestGpuRun)
#include "tst_gpu_run.moc"
