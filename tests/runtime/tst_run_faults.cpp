// `hetplan-cli run` under failure (issue 13): a rank that dies or hangs stops the whole run
// within the timeout with a message naming it, no worker outlives the run, and a plan that
// cannot run is refused before any process starts.
#include "run_test_support.h"
#include "tests/test_programs.h"
#include "tests/test_registry.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <cerrno>
#include <csignal>
#include <sys/types.h>

using namespace hetplan::runtime::test;

namespace {

constexpr int kTimeoutS = 10; // the run's --timeout-s

bool processExists(pid_t pid)
{
    return ::kill(pid, 0) == 0 || errno != ESRCH;
}

// The run failed (non-zero, not killed itself) and left none of its workers behind.
void verifyStoppedCleanly(const CliRun &result, const QList<pid_t> &pids)
{
    QVERIFY2(result.exitCode != 0 && result.exitCode != -1, qPrintable(result.err));
    for (pid_t pid : pids)
        QVERIFY2(!processExists(pid), qPrintable(QString::number(pid)));
}

// A long run of the two-stage plan, started and followed until every rank is up and rank 0
// has finished an iteration.
class LongRun : public BackgroundCli
{
public:
    LongRun()
        : BackgroundCli({QStringLiteral("run"), QStringLiteral("--plan"),
                         runtimeData("pipeline.plan.json"), QStringLiteral("--model"),
                         runtimeData("tiny.model.json"), QStringLiteral("--iterations"),
                         QStringLiteral("100000"), QStringLiteral("--timeout-s"),
                         QString::number(kTimeoutS)})
    {}

    // The workers' process ids, once rank 0 reports its first iteration.
    QList<pid_t> waitUntilRunning()
    {
        return waitForOutput({QStringLiteral("[rank 0] iteration 1/")});
    }
};

} // namespace

class TestRunFaults : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void killedRankStopsTheRun();
    void hungRankTimesOut();
    void interruptStopsEveryRank();
    void refusedBeforeAnyProcessStarts_data();
    void refusedBeforeAnyProcessStarts();
    void workerRefusesAListenAddressItCannotUse();
    void moreRanksThanAllowedAreRefused();
};

void TestRunFaults::killedRankStopsTheRun()
{
    LongRun run;
    const QList<pid_t> pids = run.waitUntilRunning();
    QCOMPARE(pids.size(), 2);
    QVERIFY(::kill(pids[1], SIGKILL) == 0);
    const CliRun result = run.finish(kTimeoutS + 20);
    qInfo("the run ended %.2f s after rank 1 was killed", result.seconds);
    verifyStoppedCleanly(result, pids);
    QVERIFY(result.seconds < kTimeoutS);
    QVERIFY2(result.err.contains(QStringLiteral("rank 1 was killed by signal 9")),
             qPrintable(result.err));
}

void TestRunFaults::hungRankTimesOut()
{
    LongRun run;
    const QList<pid_t> pids = run.waitUntilRunning();
    QCOMPARE(pids.size(), 2);
    // A stopped rank holds its connections open: only the timeout can tell it from a slow one.
    QVERIFY(::kill(pids[1], SIGSTOP) == 0);
    const CliRun result = run.finish(kTimeoutS + 20);
    qInfo("the run ended %.2f s after rank 1 stopped", result.seconds);
    verifyStoppedCleanly(result, pids);
    QVERIFY(result.seconds < kTimeoutS + 5);
    // Rank 0's own error names its peer; the run names rank 0 as the first to fail.
    QVERIFY2(result.err.contains(QStringLiteral("with rank 1 failed")), qPrintable(result.err));
    QVERIFY2(result.err.contains(QStringLiteral("rank 0 exited with status 1")),
             qPrintable(result.err));
}

void TestRunFaults::interruptStopsEveryRank()
{
    LongRun run;
    const QList<pid_t> pids = run.waitUntilRunning();
    QCOMPARE(pids.size(), 2);
    QVERIFY(::kill(pid_t(run.pid()), SIGINT) == 0); // what Ctrl-C sends
    const CliRun result = run.finish(20);
    verifyStoppedCleanly(result, pids);
    QVERIFY2(result.err.contains(QStringLiteral("interrupted")), qPrintable(result.err));
}

void TestRunFaults::refusedBeforeAnyProcessStarts_data()
{
    QTest::addColumn<QString>("planText");
    QTest::addColumn<QString>("expected");
    QTest::newRow("not JSON") << QStringLiteral("{\"format\": \"hetplan.plan/1\",") << "syntax";
    QTest::newRow("unknown GPU") << QStringLiteral(
        R"({"format": "hetplan.plan/1", "cluster": "case-study",
            "model": "llama2-13b", "workload": {"mode": "train", "global_batch": 2,
            "micro_batch": 1, "seq_len": 64},
            "pipelines": [{"micro_batch": 1, "micro_batches": 2,
              "stages": [{"gpus": ["Z:0"], "layers": [0, 40]}]}]})")
                                 << "unknown GPU";
    // 40 heads cannot be cut in 3: the model refuses the stage before anything runs.
    QTest::newRow("TP 3 does not divide the heads")
        << QStringLiteral(R"({"format": "hetplan.plan/1", "cluster": "case-study",
            "model": "llama2-13b", "workload": {"mode": "train", "global_batch": 2,
            "micro_batch": 1, "seq_len": 4096},
            "pipelines": [{"micro_batch": 1, "micro_batches": 2,
              "stages": [{"gpus": ["B:0", "B:1", "B:2"], "tp": 3, "layers": [0, 40]}]}]})")
        << "stage";
}

void TestRunFaults::refusedBeforeAnyProcessStarts()
{
    QFETCH(QString, planText);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString plan = dir.filePath(QStringLiteral("bad.plan.json"));
    QFile file(plan);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(planText.toUtf8());
    file.close();
    const CliRun run = runCli({QStringLiteral("run"), QStringLiteral("--plan"), plan,
                               QStringLiteral("--scale"), QStringLiteral("64")});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(plan) && run.err.contains(expected), qPrintable(run.err));
    // No rank was started: none printed anything, and the run never announced its ranks.
    QVERIFY2(!run.out.contains(QStringLiteral("[rank")), qPrintable(run.out));
    QVERIFY2(!run.out.contains(QStringLiteral("is process")), qPrintable(run.out));
}

// The launcher passes the hosts file's name as --listen-address; one that does not resolve
// crashed the worker inside Gloo. Now it is refused, by name, before the model is built.
void TestRunFaults::workerRefusesAListenAddressItCannotUse()
{
    QTemporaryDir rendezvous;
    QProcess worker;
    worker.start(hetplan::test::projectProgram("hetplan-worker"),
                 {QStringLiteral("--plan"),
                  QStringLiteral(HETPLAN_TEST_DATA_DIR "/good/case-study-2pp.plan.json"),
                  QStringLiteral("--scale"), QStringLiteral("64"), QStringLiteral("--rank"),
                  QStringLiteral("0"), QStringLiteral("--world"), QStringLiteral("7"),
                  QStringLiteral("--rendezvous"), rendezvous.path(), QStringLiteral("--timeout-s"),
                  QStringLiteral("5"), QStringLiteral("--listen-address"),
                  QStringLiteral("no-such-host.invalid")});
    QVERIFY(worker.waitForFinished(30000));
    const QString err = QString::fromUtf8(worker.readAllStandardError());
    QCOMPARE(worker.exitStatus(), QProcess::NormalExit);
    QCOMPARE(worker.exitCode(), 2);
    QVERIFY2(
        err.contains(QStringLiteral("--listen-address no-such-host.invalid: does not resolve")),
        qPrintable(err));
}

// `run` forked one worker per rank whatever the plan's size; past --max-ranks (default 256) it
// refuses, before any process starts.
void TestRunFaults::moreRanksThanAllowedAreRefused()
{
    const QString plan = QStringLiteral(HETPLAN_TEST_DATA_DIR "/good/case-study-2pp.plan.json");
    const CliRun run
        = runCli({QStringLiteral("run"), QStringLiteral("--plan"), plan, QStringLiteral("--scale"),
                  QStringLiteral("64"), QStringLiteral("--max-ranks"), QStringLiteral("4")});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(plan
                              + QStringLiteral(": 7 ranks, one process each on this machine, "
                                               "is more than --max-ranks 4")),
             qPrintable(run.err));
    QVERIFY2(!run.out.contains(QStringLiteral("is process")), qPrintable(run.out));
}

HETPLAN_TEST_APPLESS_MAIN(TestRunFaults)
#include "tst_run_faults.moc"
