// An emulated host's compute speed (runtime/model/compute_pace.h): the file that sets it is read
// or refused with a message naming it, and paced compute takes at least its CPU time ÷ the speed,
// with a TP all-reduce inside it left out.
#include "runtime/model/compute_pace.h"
#include "tests/test_registry.h"

#include <QTemporaryDir>
#include <QtTest>

#include <ctime>
#include <fstream>
#include <thread>

using namespace hetplan;
using namespace hetplan::runtime;

namespace {

using Clock = std::chrono::steady_clock;

// The CPU a thread spends in the pace's own sleep and wake-up, which the test's CPU time counts
// and the pace does not, times 4 at a quarter of the speed: up to 2 ms seen on a 2-core virtual
// machine. Far below what an unpaced scope would fall short (60 ms and 30 ms below).
constexpr double kSlackS = 0.005;

double threadCpuS()
{
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return double(now.tv_sec) + double(now.tv_nsec) * 1e-9;
}

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Spins until this thread has computed `seconds` of CPU time.
void computeFor(double seconds)
{
    const double until = threadCpuS() + seconds;
    volatile double sink = 0;
    while (threadCpuS() < until)
        for (int i = 0; i < 1000; ++i)
            sink = sink + 1e-9 * i;
}

// An all-reduce that only waits, as one waiting for a slower peer.
class WaitingTpComm final : public TpComm
{
public:
    explicit WaitingTpComm(double waitS)
        : m_waitS(waitS)
    {}
    Status allReduceSum(float *, std::size_t) override
    {
        std::this_thread::sleep_for(std::chrono::duration<double>(m_waitS));
        return okStatus();
    }

private:
    double m_waitS;
};

// Runs `body` on a thread of its own: nothing carried over from an earlier scope.
template<typename Body>
void onFreshThread(Body body)
{
    std::thread thread(body);
    thread.join();
}

} // namespace

class TestComputePace : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void cleanup() { setComputeSpeed(1); }

    void noFileIsFullSpeed()
    {
        QTemporaryDir dir;
        const auto speed
            = readEmulatedSpeed(dir.filePath(QStringLiteral("compute-speed")).toStdString());
        QVERIFY(bool(speed));
        QCOMPARE(*speed, 1.0);
    }

    void speedIsRead()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("compute-speed")).toStdString();
        std::ofstream(path) << "0.3\n";
        const auto speed = readEmulatedSpeed(path);
        QVERIFY(bool(speed));
        QCOMPARE(*speed, 0.3);
    }

    void badSpeedIsRefused_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::newRow("empty") << QByteArray("");
        QTest::newRow("word") << QByteArray("fast");
        QTest::newRow("zero") << QByteArray("0");
        QTest::newRow("negative") << QByteArray("-0.5");
        QTest::newRow("above one") << QByteArray("1.5");
        QTest::newRow("trailing") << QByteArray("0.5 cores");
    }
    void badSpeedIsRefused()
    {
        QFETCH(QByteArray, text);
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("compute-speed")).toStdString();
        std::ofstream(path) << text.toStdString();
        const auto speed = readEmulatedSpeed(path);
        QVERIFY(!speed);
        const std::string &message = speed.error().message;
        QVERIFY2(message.find(path) != std::string::npos, message.c_str());
        QVERIFY2(message.find("above 0 and at most 1") != std::string::npos, message.c_str());
    }

    // At a quarter of the speed, 20 ms of compute take at least 80 ms.
    void computeTakesItsCpuTimeOverTheSpeed()
    {
        setComputeSpeed(0.25);
        double cpuS = 0;
        double wallS = 0;
        onFreshThread([&] {
            const Clock::time_point start = Clock::now();
            const double cpuStart = threadCpuS();
            {
                const ComputePace pace;
                computeFor(0.02);
            }
            cpuS = threadCpuS() - cpuStart;
            wallS = secondsSince(start);
        });
        QVERIFY2(wallS >= cpuS / 0.25 - kSlackS,
                 qPrintable(QStringLiteral("%1 s of wall for %2 s of CPU").arg(wallS).arg(cpuS)));
    }

    // The all-reduce's wait is not compute: it does not make up for the pacing of the compute
    // around it, and is not paced itself.
    void tpAllReduceIsNotPaced()
    {
        setComputeSpeed(0.25);
        constexpr double kAllReduceS = 0.03;
        double cpuS = 0;
        double wallS = 0;
        onFreshThread([&] {
            WaitingTpComm waiting(kAllReduceS);
            const Clock::time_point start = Clock::now();
            const double cpuStart = threadCpuS();
            {
                ComputePace pace;
                PacedTpComm tp(waiting, pace);
                computeFor(0.005);
                QVERIFY(bool(tp.allReduceSum(nullptr, 0)));
                computeFor(0.005);
            }
            cpuS = threadCpuS() - cpuStart;
            wallS = secondsSince(start);
        });
        QVERIFY2(wallS >= cpuS / 0.25 + kAllReduceS - kSlackS,
                 qPrintable(QStringLiteral("%1 s of wall for %2 s of CPU").arg(wallS).arg(cpuS)));
        // Had the all-reduce been paced (× 4), the scope would take 0.16 s and more.
        QVERIFY2(wallS < cpuS / 0.25 + 4 * kAllReduceS,
                 qPrintable(QStringLiteral("%1 s of wall for %2 s of CPU").arg(wallS).arg(cpuS)));
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestComputePace)
#include "tst_compute_pace.moc"
