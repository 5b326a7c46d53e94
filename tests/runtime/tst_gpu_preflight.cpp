// The pre-flight over real NCCL (docs/launcher.md, "Pre-flight"): two hetplan-worker ranks with
// --backend cuda on two GPUs of this machine check a two-stage pipeline's hop both ways over the
// NCCL communicators the GPU run opens, and report both checks measured, transport nccl. Needs
// two CUDA devices (NCCL takes one per rank); skipped elsewhere, saying why.
#include "gpu_test_support.h"
#include "run_test_support.h"
#include "runtime/worker/preflight_checks.h"
#include "tests/test_registry.h"

#include <QProcess>
#include <QTemporaryDir>

#include <memory>
#include <vector>

using namespace hetplan;
using namespace hetplan::runtime;
using namespace hetplan::runtime::test;

class TestGpuPreflight : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        HETPLAN_REQUIRE_GPU();
        if (cuda::deviceCount().count < 2)
            QSKIP("no usable CUDA device pair: the NCCL pre-flight needs two devices");
    }
    void hopMeasuredOverNccl();
};

void TestGpuPreflight::hopMeasuredOverNccl()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    std::vector<std::unique_ptr<QProcess>> ranks;
    for (int r = 0; r < 2; ++r) {
        auto process = std::make_unique<QProcess>();
        process->start(
            hetplan::test::projectProgram("hetplan-worker"),
            {QStringLiteral("--plan"), runtimeData("pipeline.plan.json"), QStringLiteral("--model"),
             runtimeData("tiny.model.json"), QStringLiteral("--rank"), QString::number(r),
             QStringLiteral("--world"), QStringLiteral("2"), QStringLiteral("--rendezvous"),
             dir.path(), QStringLiteral("--backend"), QStringLiteral("cuda"),
             QStringLiteral("--device"), QString::number(r), QStringLiteral("--timeout-s"),
             QStringLiteral("30"), QStringLiteral("--preflight-s"), QStringLiteral("0.2")});
        ranks.push_back(std::move(process));
    }
    for (int r = 0; r < 2; ++r) {
        QProcess &process = *ranks[std::size_t(r)];
        const bool ended = process.waitForFinished(120000);
        if (!ended)
            process.kill();
        const QString out = QString::fromUtf8(process.readAllStandardOutput());
        QVERIFY2(ended && process.exitCode() == 0,
                 qPrintable(out + QString::fromUtf8(process.readAllStandardError())));
        int reported = 0;
        for (const QString &line : out.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
            auto result = parsePreflightLine(line.toStdString());
            QVERIFY2(result, qPrintable(line));
            QVERIFY2(result->error.empty(), qPrintable(line));
            QCOMPARE(result->transport, std::string("nccl"));
            QVERIFY(result->ops >= 1 && result->seconds > 0);
            ++reported;
        }
        QCOMPARE(reported, 2); // the hop, both ways
    }
}

HETPLAN_TEST_GUILESS_MAIN(TestGpuPreflight)
#include "tst_gpu_preflight.moc"
