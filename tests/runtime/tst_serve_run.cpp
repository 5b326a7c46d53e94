// `hetplan-cli run` of a serving plan (two replicas: one stage, and two stages): every request
// of the stream is served and written; a rank that dies fails its replica's requests with the
// reason and stops the run with nothing left running; an interrupt cancels what is unfinished.
#include "run_test_support.h"
#include "runtime/serve/served_records.h"
#include "served_check.h"
#include "tests/test_programs.h"
#include "tests/test_registry.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cerrno>
#include <csignal>
#include <sys/types.h>

using namespace hetplan;
using namespace hetplan::runtime::test;

namespace {

constexpr int kTimeoutS = 10; // the run's --timeout-s

QStringList serveArgs(const QString &outDir, int requests)
{
    return {QStringLiteral("run"),
            QStringLiteral("--plan"),
            runtimeData("serving.plan.json"),
            QStringLiteral("--model"),
            runtimeData("tiny.model.json"),
            QStringLiteral("--requests"),
            QString::number(requests),
            QStringLiteral("--timeout-s"),
            QString::number(kTimeoutS),
            QStringLiteral("--out"),
            outDir};
}

bool processExists(pid_t pid)
{
    return ::kill(pid, 0) == 0 || errno != ESRCH;
}

// A serving run of many requests, followed until both replicas' schedulers have started.
class LongServe : public BackgroundCli
{
public:
    explicit LongServe(const QString &outDir)
        : BackgroundCli(serveArgs(outDir, 100000))
    {}
    QList<pid_t> waitUntilServing()
    {
        return waitForOutput(
            {QStringLiteral("replica 0: serving"), QStringLiteral("replica 1: serving")});
    }
};

} // namespace

class TestServeRun : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void servesEveryRequest()
    {
        QTemporaryDir out;
        const CliRun run = runCli(serveArgs(out.path(), 12));
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains(QStringLiteral("served 12 of 12 requests on 2 replicas")),
                 qPrintable(run.out));
        QVERIFY2(run.out.contains(QStringLiteral("time per output token")), qPrintable(run.out));
        // The warm-up is said: outside the stream, so none of the 12 is left out.
        QVERIFY2(run.out.contains(QStringLiteral("warm-up: one unrecorded request per replica "
                                                 "before the stream; every request above is "
                                                 "measured")),
                 qPrintable(run.out));
        const std::vector<ServedRequest> served = servedRecords(out.path());
        verifyAccounted(served, 12);
        for (const ServedRequest &s : served) {
            QVERIFY(s.completed);
            QVERIFY(s.replica == 0 || s.replica == 1);
            QCOMPARE(s.outputTokens, 8);
            QVERIFY(s.arrivalS <= s.admittedS && s.admittedS <= s.firstTokenS
                    && s.firstTokenS <= s.finishS);
        }
    }

    // A trace's arrivals and lengths are served as written; a line that is not one (here an
    // arrival before the previous one) is refused, naming the file and line, before any rank
    // starts; --duration serves what arrives in it.
    void traceAndDuration()
    {
        QTemporaryDir dir;
        const QString trace = dir.filePath(QStringLiteral("requests.trace"));
        QVERIFY(writeThreeRequestTrace(trace));
        const QString out = dir.filePath(QStringLiteral("served"));
        QStringList args = serveArgs(out, 3);
        args << QStringLiteral("--trace") << trace;
        const CliRun run = runCli(args);
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        verifyThreeRequestTrace(servedRecords(out));

        QFile file(trace);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("0.1 7 2\n0.0 4 4\n");
        file.close();
        const CliRun refused = runCli(args);
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains(trace + QStringLiteral(": line 2: ")),
                 qPrintable(refused.err));
        QVERIFY2(!refused.out.contains(QStringLiteral("is process")), qPrintable(refused.out));

        const QString durationOut = dir.filePath(QStringLiteral("duration"));
        QStringList duration = serveArgs(durationOut, 1);
        duration.replace(duration.indexOf(QStringLiteral("--requests")),
                         QStringLiteral("--duration"));
        duration.replace(duration.indexOf(QStringLiteral("--duration")) + 1, QStringLiteral("0.5"));
        const CliRun timed = runCli(duration);
        QVERIFY2(timed.exitCode == 0, qPrintable(timed.err));
        const std::vector<ServedRequest> inWindow = servedRecords(durationOut);
        QVERIFY(!inWindow.empty());
        for (const ServedRequest &s : inWindow)
            QVERIFY(s.completed && s.arrivalS <= 0.5);
    }

    // A training run's --dump-weights folder serves; a folder without dumps is refused by
    // every rank, naming what is missing.
    void servesATrainingRunsWeights()
    {
        QTemporaryDir dumps;
        QTemporaryDir out;
        const CliRun trained
            = runCli({QStringLiteral("run"), QStringLiteral("--plan"),
                      runtimeData("one-stage.plan.json"), QStringLiteral("--model"),
                      runtimeData("tiny.model.json"), QStringLiteral("--iterations"),
                      QStringLiteral("1"), QStringLiteral("--dump-weights"), dumps.path()});
        QVERIFY2(trained.exitCode == 0, qPrintable(trained.err));
        const CliRun served
            = runCli(serveArgs(out.path(), 6) << QStringLiteral("--weights") << dumps.path());
        QVERIFY2(served.exitCode == 0, qPrintable(served.err));
        QVERIFY2(served.out.contains(QStringLiteral("served 6 of 6 requests")),
                 qPrintable(served.out));
        QTemporaryDir empty;
        QTemporaryDir out2;
        const CliRun refused
            = runCli(serveArgs(out2.path(), 6) << QStringLiteral("--weights") << empty.path());
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains(QStringLiteral("no .weights files")),
                 qPrintable(refused.err));
        QVERIFY2(refused.out.contains(QStringLiteral("served 0 of 6 requests")),
                 qPrintable(refused.out));
    }

    // A rank of replica 1 dies: its second stage (the scheduler fails the unfinished requests
    // saying it lost that rank) or its scheduler (the run fails them, as no record came). The
    // run stops naming the rank, replica 0's requests are cancelled saying why, no rank is left.
    void killedRankFailsItsReplicasRequests_data()
    {
        QTest::addColumn<int>("rank");
        QTest::addColumn<QString>("replicaOneFailure");
        QTest::newRow("second stage")
            << 2 << QStringLiteral("replica 1 lost its rank 2 was killed");
        QTest::newRow("scheduler")
            << 1 << QStringLiteral("replica 1 wrote no record: rank 1 was killed");
    }

    void killedRankFailsItsReplicasRequests()
    {
        QFETCH(int, rank);
        QFETCH(QString, replicaOneFailure);
        const std::string killed = "rank " + std::to_string(rank) + " was killed by signal 9";
        QTemporaryDir out;
        LongServe serve(out.path());
        const QList<pid_t> pids = serve.waitUntilServing();
        QCOMPARE(pids.size(), 3);
        QVERIFY(::kill(pids[rank], SIGKILL) == 0);
        const CliRun result = serve.finish(kTimeoutS + 20);
        QCOMPARE(result.exitCode, 1);
        QVERIFY2(result.err.contains(QString::fromStdString(killed)), qPrintable(result.err));
        for (pid_t pid : pids)
            QVERIFY2(!processExists(pid), qPrintable(QString::number(pid)));
        const std::vector<ServedRequest> served = servedRecords(out.path());
        verifyAccounted(served, 100000);
        int replicaOneFailed = 0;
        for (const ServedRequest &s : served) {
            if (s.completed)
                continue;
            if (s.replica == 1) {
                ++replicaOneFailed;
                QVERIFY2(s.failure.find(replicaOneFailure.toStdString()) == 0, s.failure.c_str());
            } else {
                QVERIFY2(s.failure.find("cancelled: the run stopped: " + killed) == 0,
                         s.failure.c_str());
            }
        }
        QVERIFY(replicaOneFailed > 0);
        QVERIFY2(result.out.contains(QStringLiteral("failed (")), qPrintable(result.out));
    }

    void interruptCancelsEveryReplica()
    {
        QTemporaryDir out;
        LongServe serve(out.path());
        const QList<pid_t> pids = serve.waitUntilServing();
        QCOMPARE(pids.size(), 3);
        QVERIFY(::kill(pid_t(serve.pid()), SIGINT) == 0);
        const CliRun result = serve.finish(20);
        QCOMPARE(result.exitCode, 1);
        QVERIFY2(result.err.contains(QStringLiteral("interrupted")), qPrintable(result.err));
        for (pid_t pid : pids)
            QVERIFY2(!processExists(pid), qPrintable(QString::number(pid)));
        const std::vector<ServedRequest> served = servedRecords(out.path());
        verifyAccounted(served, 100000);
        QVERIFY(!served.back().completed);
    }

    // A scheduler's journal of completed requests: each append is a whole record; a last line
    // cut short by a kill is left out; the final write replaces the journal.
    void journalKeepsWholeRecords()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("replica-0.served")).toStdString();
        ServedRequest first;
        first.id = 3;
        first.arrivalS = 0.25;
        first.admittedS = 0.5;
        first.firstTokenS = 0.75;
        first.finishS = 1.125;
        first.promptTokens = 8;
        first.outputTokens = 8;
        first.completed = true;
        ServedRequest second = first;
        second.id = 5;
        second.finishS = 2.5;
        QVERIFY(runtime::appendServedRecord(path, first));
        QVERIFY(runtime::appendServedRecord(path, second));
        QFile file(QString::fromStdString(path));
        QVERIFY(file.open(QIODevice::Append));
        file.write("7\t0\t0.5\t0.5"); // killed mid-append
        file.close();
        auto read = runtime::readServedRecords(path);
        QVERIFY2(read, read ? "" : read.error().message.c_str());
        QCOMPARE(int(read->size()), 2);
        QCOMPARE((*read)[1].id, 5);
        QCOMPARE((*read)[1].finishS, 2.5);
        QVERIFY((*read)[0].completed);
        QVERIFY(runtime::writeServedRecords(path, {second}));
        QCOMPARE(int(runtime::readServedRecords(path)->size()), 1);
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestServeRun)
#include "tst_serve_run.moc"
