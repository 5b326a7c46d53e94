// `hetplan-cli launch` of a serving plan across two network-namespace hosts with Debian's stock
// sshd (netns_fixture.h): replica 0 (one stage) on host A, replica 1 (two stages) on host B.
// The stream is served and accounted for, the measurement validates and is compared with the
// simulator; a killed rank fails its replica's requests with the reason and a Cancel cancels
// every replica; neither leaves a process, listener or job folder on any host.
#include "tests/runtime/live_launch.h"
#include "tests/runtime/netns_fixture.h"
#include "tests/runtime/served_check.h"
#include "tests/test_registry.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

using namespace hetplan;
using namespace hetplan::test;
using namespace hetplan::runtime::test;

namespace {

constexpr int kHosts = 2; // A and B
// Requests of a stream that outlasts the test, at 2 per second, so a fault lands mid-stream.
constexpr int kLongStream = 2000;

} // namespace

class TestLaunchServe : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void servesAcrossTwoHosts();
    void traceTravelsWithTheJob();
    void killedRankFailsItsReplicasRequests();
    void cancelStopsEveryReplica();
    void cancelKeepsFinishedRequestsOfKilledSchedulers();

private:
    QStringList launchArgs(const QString &outDir, int requests) const;
    // Starts a launch of kLongStream requests at 2 per second (and `extra` options); whether both
    // replicas' schedulers began serving within a minute.
    bool startLongStream(LiveLaunch &launch, const QString &outDir,
                         const QStringList &extra = {}) const;
    // The pid of the hetplan-worker of `rank` on host i, or -1.
    int rankPid(int i, int rank) const;
    // Cancels (SIGINT to launch) a long stream started with `extra` options once a few requests
    // were served: the finished requests keep their records, every other request's failure
    // says "cancelled" at `reasonAt` (npos: anywhere), nothing is left on any host.
    void cancelMidStream(const QStringList &extra, std::size_t reasonAt);
    // Neither a process, a listener nor a job folder of the job left on any host.
    void expectNothingLeft();

    NamespaceHosts m_hosts;
    QTemporaryDir m_dir;
    QString m_hostsFile;
};

void TestLaunchServe::initTestCase()
{
    if (QString why = m_hosts.create(kHosts); !why.isEmpty())
        QSKIP(qPrintable(QStringLiteral("network namespace hosts: ") + why));
    QVERIFY(m_dir.isValid());
    m_hostsFile = m_hosts.writeHosts({QStringLiteral("A"), QStringLiteral("B")}, m_dir.path(),
                                     projectProgram("hetplan-worker"));
    QVERIFY(!m_hostsFile.isEmpty());
}

QStringList TestLaunchServe::launchArgs(const QString &outDir, int requests) const
{
    return QStringList{QStringLiteral("launch"),
                       QStringLiteral("--plan"),
                       runtimeData("serving.plan.json"),
                       QStringLiteral("--model"),
                       runtimeData("tiny.model.json"),
                       QStringLiteral("--requests"),
                       QString::number(requests),
                       QStringLiteral("--out"),
                       outDir}
           + testHostOptions(m_hostsFile, m_dir.filePath(QStringLiteral("known_hosts")));
}

bool TestLaunchServe::startLongStream(LiveLaunch &launch, const QString &outDir,
                                      const QStringList &extra) const
{
    launch.start(launchArgs(outDir, kLongStream)
                 << QStringLiteral("--rate") << QStringLiteral("2") << extra);
    return launch.waitFor(QStringLiteral("replica 1: serving"), 60000)
           && launch.waitFor(QStringLiteral("replica 0: serving"), 60000);
}

int TestLaunchServe::rankPid(int i, int rank) const
{
    const QString flag = QStringLiteral(" --rank %1 ").arg(rank);
    for (int pid : m_hosts.pids(i)) {
        const QString line = processCommandLine(pid) + QLatin1Char(' ');
        if (line.contains(QLatin1String("hetplan-worker")) && line.contains(flag))
            return pid;
    }
    return -1;
}

void TestLaunchServe::expectNothingLeft()
{
    const QStringList left = m_hosts.jobProcessesLeft();
    QVERIFY2(left.isEmpty(), qPrintable(left.join(QStringLiteral(", "))));
    for (int i = 0; i < kHosts; ++i) {
        QStringList listening;
        for (const QString &line : m_hosts.listeners(i))
            if (!line.contains(QLatin1String("((\"sshd\"")))
                listening << line;
        QVERIFY2(listening.isEmpty(), qPrintable(listening.join(QLatin1Char('\n'))));
        const QStringList folders
            = QDir(m_dir.filePath(QStringLiteral("host-%1").arg(i)))
                  .entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::Hidden);
        QVERIFY2(folders.isEmpty(), qPrintable(folders.join(QStringLiteral(", "))));
    }
}

void TestLaunchServe::servesAcrossTwoHosts()
{
    QTemporaryDir out;
    LiveLaunch launch;
    launch.start(launchArgs(out.path(), 12));
    QCOMPARE(launch.finish(120000), 0);
    QVERIFY2(launch.out.contains(QStringLiteral("served 12 of 12 requests on 2 replicas")),
             qPrintable(launch.out + launch.err));
    QVERIFY2(launch.out.contains(QStringLiteral("[rank 0 ") + m_hosts.address(0)),
             qPrintable(launch.out));
    // The comparison with the simulator, as `run` prints it.
    QVERIFY2(launch.out.contains(QLatin1String("simulated beside measured")),
             qPrintable(launch.out));
    const std::vector<ServedRequest> served = servedRecords(out.path());
    verifyAccounted(served, 12);
    bool onReplica[2] = {false, false};
    for (const ServedRequest &s : served) {
        QVERIFY2(s.completed, s.failure.c_str());
        QCOMPARE(s.outputTokens, 8);
        onReplica[s.replica] = true;
    }
    QVERIFY(onReplica[0] && onReplica[1]);
    const ServingRun run
        = loadServingMeasurement(
              (out.path() + QStringLiteral("/serving-measurement.json")).toStdString())
              .value()
              .run;
    const std::vector<std::string> hosts{m_hosts.address(0).toStdString(),
                                         m_hosts.address(1).toStdString()};
    QCOMPARE(run.hosts, hosts);
    const CliRun validated = runCli(
        {QStringLiteral("validate"), out.path() + QStringLiteral("/serving-measurement.json")});
    QVERIFY2(validated.exitCode == 0, qPrintable(validated.out + validated.err));
    expectNothingLeft();
}

// A --trace file on this machine is uploaded with the job: its arrivals and lengths are served
// as written.
void TestLaunchServe::traceTravelsWithTheJob()
{
    QTemporaryDir dir;
    const QString trace = dir.filePath(QStringLiteral("requests.trace"));
    QVERIFY(writeThreeRequestTrace(trace));
    const QString out = dir.filePath(QStringLiteral("served"));
    LiveLaunch launch;
    launch.start(launchArgs(out, 3) << QStringLiteral("--trace") << trace);
    QCOMPARE(launch.finish(120000), 0);
    verifyThreeRequestTrace(servedRecords(out));
    expectNothingLeft();
}

// Replica 1's second stage (rank 2, host B) dies mid-stream: the job stops naming it, replica
// 1's unfinished requests fail saying it lost that rank, replica 0's are cancelled saying why,
// and every request is in the measurement.
void TestLaunchServe::killedRankFailsItsReplicasRequests()
{
    QTemporaryDir out;
    LiveLaunch launch;
    QVERIFY2(startLongStream(launch, out.path()), qPrintable(launch.out + launch.err));
    const int victim = rankPid(1, 2);
    QVERIFY2(victim > 0, qPrintable(m_hosts.jobProcesses(1).join(QStringLiteral(", "))));
    QTest::qWait(1500); // a few requests served first
    ::kill(victim, SIGKILL);
    QCOMPARE(launch.finish(60000), 1);
    const std::string killed
        = "rank 2 on " + m_hosts.address(1).toStdString() + ":22 failed (killed by signal 9)";
    QVERIFY2(launch.err.contains(QString::fromStdString(killed)), qPrintable(launch.err));
    const std::vector<ServedRequest> served = servedRecords(out.path());
    verifyAccounted(served, kLongStream);
    int replicaOneFailed = 0;
    int completed = 0;
    for (const ServedRequest &s : served) {
        if (s.completed) {
            ++completed;
            continue;
        }
        if (s.replica == 1) {
            ++replicaOneFailed;
            QVERIFY2(s.failure.find("replica 1 lost its " + killed) == 0, s.failure.c_str());
        } else {
            QVERIFY2(s.failure.find("cancelled: the run stopped: " + killed) == 0,
                     s.failure.c_str());
        }
    }
    QVERIFY(replicaOneFailed > 0);
    QVERIFY(completed > 0);
    expectNothingLeft();
}

void TestLaunchServe::cancelMidStream(const QStringList &extra, std::size_t reasonAt)
{
    QTemporaryDir out;
    LiveLaunch launch;
    QVERIFY2(startLongStream(launch, out.path(), extra), qPrintable(launch.out + launch.err));
    QTest::qWait(1500); // a few requests served first
    ::kill(pid_t(launch.process.processId()), SIGINT);
    QCOMPARE(launch.finish(60000), 130);
    QVERIFY2(launch.err.contains(QLatin1String("cancelled")), qPrintable(launch.err));
    const std::vector<ServedRequest> served = servedRecords(out.path());
    verifyAccounted(served, kLongStream);
    // The requests finished before the cancel keep their measured records; only the rest are
    // cancelled.
    int completed = 0;
    for (const ServedRequest &s : served) {
        if (s.completed)
            ++completed;
        else if (const std::size_t at = s.failure.find("cancelled"); reasonAt == std::string::npos)
            QVERIFY2(at != std::string::npos, s.failure.c_str());
        else
            QVERIFY2(at == reasonAt, s.failure.c_str());
    }
    QVERIFY(completed > 0);
    QVERIFY(!served.back().completed);
    expectNothingLeft();
}

void TestLaunchServe::cancelStopsEveryReplica()
{
    cancelMidStream({}, 0);
}

// With no grace period the schedulers are killed on Cancel before they can write their records
// (as they are when a step outlasts the grace period): the requests they had finished keep their
// records all the same, the rest fail saying the job was cancelled.
void TestLaunchServe::cancelKeepsFinishedRequestsOfKilledSchedulers()
{
    cancelMidStream({QStringLiteral("--grace-s"), QStringLiteral("0")}, std::string::npos);
}

HETPLAN_TEST_GUILESS_MAIN(TestLaunchServe)
#include "tst_launch_serve.moc"
