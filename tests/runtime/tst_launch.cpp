// `hetplan-cli launch` across "hosts" that are network namespaces of this machine, each with
// its own sshd from Debian's stock sshd_config (netns_fixture.h), running the build's own
// hetplan-worker: the loss equals a local `hetplan-cli run` of the same plan; 8 and 16 ranks on
// one host (more than sshd's default 10 sessions) train and return their measurement; host keys
// and user keys are checked before anything starts; an unreachable host fails preflight in
// bounded time with nothing started; during a job only the ranks' data ports listen and the
// rendezvous is closed to other users; cancel, a dying rank and a killed sshd leave no process,
// listener or job folder of the job on any host.
#include "core/io/files.h"
#include "core/io/measurement_json.h"
#include "core/io/probe_file.h"
#include "tests/runtime/live_launch.h"
#include "tests/runtime/netns_fixture.h"
#include "tests/runtime/run_test_support.h"
#include "tests/test_registry.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

using namespace hetplan;
using namespace hetplan::test;
using namespace hetplan::runtime::test;

namespace {

constexpr int kHosts = 3;
const char *const kMachines[kHosts] = {"A", "B", "C"};

// Whether `pid` is a rank of a job (a hetplan-worker that trains, not the host's agent).
bool isRank(int pid)
{
    const QString line = processCommandLine(pid);
    return line.contains(QLatin1String("hetplan-worker"))
           && line.contains(QLatin1String(" --rank "));
}

// Whether a process running as user `uid` could connect to the Unix socket `path`.
bool connectsAs(uid_t uid, const QByteArray &path)
{
    const pid_t child = ::fork();
    if (child == 0) {
        // Only async-signal-safe calls between fork and _exit.
        if (::setgid(uid) != 0 || ::setuid(uid) != 0)
            ::_exit(2);
        const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        for (std::size_t i = 0; i < std::size_t(path.size()) && i + 1 < sizeof address.sun_path;
             ++i)
            address.sun_path[i] = path[qsizetype(i)];
        const bool ok = ::connect(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0;
        ::_exit(ok ? 0 : 1);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

} // namespace

class TestLaunch : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void launchMatchesLocalRun();
    void unknownHostKeyIsRefused();
    void wrongUserKeyFails();
    void unreachableHostFailsPreflight();
    void manyRanksOnOneHost_data();
    void manyRanksOnOneHost();
    void onlyTheRanksListen();
    void cancelStopsEveryRank();
    void cancelEightRanksOnOneHost();
    void killedLauncherLeavesNothing();
    void deadRankStopsTheJob();
    void droppedHostStopsTheJob();
    void ownCommandRunsPerRank();
    void probeEveryHost();

private:
    // A hosts file mapping A, B, C to the namespaces; `edit` may change an entry.
    QString hostsFile(const QString &name,
                      const std::function<void(int, QJsonObject &)> &edit = {}) const;
    // Trusting new host keys unless `acceptNewKeys` is false: each test stands alone.
    QStringList launchArgs(const QString &hosts, const QString &knownHosts,
                           bool acceptNewKeys = true) const;
    // A hosts file mapping one-node.cluster.json's machine N to host 0.
    QString nodeHostsFile() const;
    // A launch of one-node-RANKS.plan.json on host 0.
    QStringList nodeLaunchArgs(int ranks) const;
    void expectNothingLeft(const char *when);
    // Every TCP socket listening on host i ("ss -ltnpH" lines), the host's sshd among them.
    QStringList listeners(int i) const;
    // listeners(i) but sshd's: what the job left listening.
    QStringList jobListeners(int i) const;
    // The job folders left under host i's workdir.
    QStringList jobFolders(int i) const;
    // Neither a listener nor a job folder of the job left on host i.
    void expectHostClean(int i);
    // Kills every sshd process of host i, as when the host's SSH server dies.
    int killSshd(int i);

    NamespaceHosts m_hosts;
    QTemporaryDir m_dir;
    QString m_knownHosts;
};

void TestLaunch::initTestCase()
{
    if (QString why = m_hosts.create(kHosts); !why.isEmpty())
        QSKIP(qPrintable(QStringLiteral("network namespace hosts: ") + why));
    QVERIFY(m_dir.isValid());
    m_knownHosts = m_dir.filePath(QStringLiteral("known_hosts"));
}

QString TestLaunch::hostsFile(const QString &name,
                              const std::function<void(int, QJsonObject &)> &edit) const
{
    QJsonArray entries;
    for (int i = 0; i < kHosts; ++i) {
        QJsonObject entry = const_cast<NamespaceHosts &>(m_hosts).hostEntry(
            i, QString::fromLatin1(kMachines[i]), m_dir.filePath(QStringLiteral("host-%1").arg(i)),
            projectProgram("hetplan-worker"));
        if (edit)
            edit(i, entry);
        entries.append(entry);
    }
    return writeHostsFile(m_dir.filePath(name), entries);
}

QStringList TestLaunch::launchArgs(const QString &hosts, const QString &knownHosts,
                                   bool acceptNewKeys) const
{
    QStringList args = {QStringLiteral("launch"),
                        QStringLiteral("--plan"),
                        runtimeData("asymmetric.plan.json"),
                        QStringLiteral("--model"),
                        runtimeData("tiny.model.json"),
                        QStringLiteral("--hosts"),
                        hosts,
                        QStringLiteral("--known-hosts"),
                        knownHosts,
                        QStringLiteral("--connect-timeout-s"),
                        QStringLiteral("5")};
    if (acceptNewKeys)
        args << QStringLiteral("--accept-new-host-keys");
    return args;
}

QString TestLaunch::nodeHostsFile() const
{
    const QString path = hostsFile(QStringLiteral("node.json"));
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QJsonObject hosts = QJsonDocument::fromJson(file.readAll()).object();
    file.close();
    QJsonObject first = hosts[QStringLiteral("hosts")].toArray().first().toObject();
    first[QStringLiteral("machine")] = QStringLiteral("N");
    hosts[QStringLiteral("hosts")] = QJsonArray{first};
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return {};
    file.write(QJsonDocument(hosts).toJson());
    return path;
}

QStringList TestLaunch::nodeLaunchArgs(int ranks) const
{
    QStringList args = launchArgs(nodeHostsFile(), m_knownHosts);
    args[args.indexOf(QStringLiteral("--plan")) + 1]
        = runtimeData(QStringLiteral("one-node-%1.plan.json").arg(ranks).toLatin1().constData());
    return args << QStringLiteral("--cluster") << runtimeData("one-node.cluster.json");
}

QStringList TestLaunch::listeners(int i) const
{
    return m_hosts.listeners(i);
}

QStringList TestLaunch::jobListeners(int i) const
{
    QStringList left;
    for (const QString &line : listeners(i))
        if (!line.contains(QLatin1String("((\"sshd\"")))
            left << line;
    return left;
}

QStringList TestLaunch::jobFolders(int i) const
{
    return QDir(m_dir.filePath(QStringLiteral("host-%1").arg(i)))
        .entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::Hidden);
}

void TestLaunch::expectHostClean(int i)
{
    QVERIFY2(jobListeners(i).isEmpty(), qPrintable(jobListeners(i).join(QLatin1Char('\n'))));
    QVERIFY2(jobFolders(i).isEmpty(), qPrintable(jobFolders(i).join(QStringLiteral(", "))));
}

int TestLaunch::killSshd(int i)
{
    int killed = 0;
    for (int pid : m_hosts.pids(i)) {
        QFile comm(QStringLiteral("/proc/%1/comm").arg(pid));
        if (comm.open(QIODevice::ReadOnly) && comm.readAll().trimmed() == "sshd") {
            ::kill(pid, SIGKILL);
            ++killed;
        }
    }
    return killed;
}

void TestLaunch::expectNothingLeft(const char *when)
{
    const QStringList left = m_hosts.jobProcessesLeft();
    if (left.isEmpty())
        return;
    QFAIL(qPrintable(QStringLiteral("%1: processes left: ").arg(QLatin1String(when))
                     + left.join(QStringLiteral(", "))));
}

void TestLaunch::manyRanksOnOneHost_data()
{
    QTest::addColumn<int>("ranks");
    QTest::newRow("8 ranks") << 8;
    QTest::newRow("16 ranks") << 16;
}

// More ranks on one host than Debian's stock sshd allows sessions per connection (10):
// the job still trains, and every rank's measurement comes back.
void TestLaunch::manyRanksOnOneHost()
{
    QFETCH(int, ranks);
    const QString out = m_dir.filePath(QStringLiteral("node-%1.json").arg(ranks));
    LiveLaunch launch;
    launch.start(nodeLaunchArgs(ranks) << QStringLiteral("--out") << out);
    const int code = launch.finish(60000);
    QVERIFY2(code == 0, qPrintable(launch.out + launch.err));
    qInfo("%d ranks on one host: first rank output after %lld ms, whole job %lld ms", ranks,
          launch.firstRankOutputMs, launch.clock.elapsed());
    auto measured = loadMeasurement(out.toStdString());
    QVERIFY2(measured.ok(), measured.ok() ? "" : measured.error().message.c_str());
    QCOMPARE(measured->ranks.size(), std::size_t(ranks));
    for (int r = 0; r < ranks; ++r)
        QCOMPARE(measured->ranks[std::size_t(r)].rank, r);
    QVERIFY(!measured->loss.empty());
    expectHostClean(0);
    expectNothingLeft("after the job");
}

// While a job runs, what listens on a host's network addresses is its sshd and the ranks' own
// data ports, nothing else (no store port: the rendezvous goes through each agent's Unix
// socket); that socket sits in the job folder, which only the SSH user may enter.
void TestLaunch::onlyTheRanksListen()
{
    LiveLaunch launch;
    launch.start(launchArgs(hostsFile(QStringLiteral("hosts.json")), m_knownHosts)
                 << QStringLiteral("--iterations") << QStringLiteral("1000000"));
    // Gloo's ports listen while the ranks connect to each other, so the hosts are looked at
    // from the start of the job until the ranks train.
    QStringList seen;
    int rankPorts = 0;
    bool sshdSeen = false;
    while (!launch.out.contains(QLatin1String("[rank 0 ")) && launch.clock.elapsed() < 60000
           && launch.process.state() != QProcess::NotRunning) {
        for (int i = 0; i < kHosts; ++i) {
            for (const QString &line : listeners(i)) {
                const QString local = line.simplified().section(QLatin1Char(' '), 3, 3);
                if (local.startsWith(QLatin1String("127."))
                    || local.startsWith(QLatin1String("[::1]")))
                    continue;
                if (line.contains(QLatin1String("((\"sshd\""))) {
                    sshdSeen = true; // the host's own SSH server, not the job's
                    continue;
                }
                // ss maps sockets to processes from a scan of /proc made before it lists
                // them: a socket opened in between has no owner yet. It is looked at again in
                // the next round; a listener that stays is named then.
                const qsizetype at = line.indexOf(QLatin1String("pid="));
                if (at < 0)
                    continue;
                const int pid = line.mid(at + 4).section(QLatin1Char(','), 0, 0).toInt();
                QVERIFY2(isRank(pid), qPrintable(m_hosts.name(i) + QStringLiteral(": ") + line
                                                 + QStringLiteral(" is not a rank's: ")
                                                 + processCommandLine(pid)));
                if (!seen.contains(local))
                    seen << local;
            }
        }
        launch.process.waitForReadyRead(10);
        launch.read();
    }
    rankPorts = int(seen.size());
    QVERIFY2(launch.out.contains(QLatin1String("[rank 0 ")), qPrintable(launch.out + launch.err));
    QVERIFY2(sshdSeen, "ss should list each host's sshd");
    qInfo("while the ranks connected: %d listening ports seen, every one a rank's", rankPorts);
    for (int i = 0; i < kHosts; ++i) {
        // The job folder: the SSH user's alone; its store socket refuses anyone else.
        const QStringList folders = jobFolders(i);
        QCOMPARE(folders.size(), 1);
        const QString folder = m_dir.filePath(QStringLiteral("host-%1/").arg(i) + folders.first());
        QCOMPARE(QFile::permissions(folder)
                     & (QFile::ReadOther | QFile::ExeOther | QFile::ReadGroup | QFile::ExeGroup),
                 QFile::Permissions());
        const QByteArray socket = QFile::encodeName(folder + QStringLiteral("/store.sock"));
        QVERIFY2(QFileInfo::exists(QString::fromLocal8Bit(socket)), socket.constData());
        QVERIFY2(connectsAs(::getuid(), socket), "the SSH user reaches the store socket");
        QVERIFY2(!connectsAs(65534, socket), "another user reached the store socket");
    }
    ::kill(pid_t(launch.process.processId()), SIGINT);
    QCOMPARE(launch.finish(60000), 130);
    expectNothingLeft("after the job");
}

void TestLaunch::launchMatchesLocalRun()
{
    const QString local = m_dir.filePath(QStringLiteral("local.json"));
    const QString remote = m_dir.filePath(QStringLiteral("remote.json"));
    const CliRun run = runCli({QStringLiteral("run"), QStringLiteral("--plan"),
                               runtimeData("asymmetric.plan.json"), QStringLiteral("--model"),
                               runtimeData("tiny.model.json"), QStringLiteral("--out"), local});
    QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));

    LiveLaunch launch;
    launch.start(launchArgs(hostsFile(QStringLiteral("hosts.json")), m_knownHosts)
                 << QStringLiteral("--out") << remote);
    const int code = launch.finish(120000);
    QVERIFY2(code == 0, qPrintable(launch.out + launch.err));
    qInfo("launch on %d namespace hosts: preflight done after %lld ms, ranks starting after %lld "
          "ms, first rank output after %lld ms, whole job %lld ms",
          kHosts, launch.uploadingMs, launch.runningMs, launch.firstRankOutputMs,
          launch.clock.elapsed());
    QVERIFY2(launch.out.contains(QStringLiteral("[rank 0 ") + m_hosts.address(0)),
             qPrintable(launch.out));
    QVERIFY2(launch.out.contains(QLatin1String("measured")), qPrintable(launch.out));

    const Measurement mine = loadMeasurement(local.toStdString()).value();
    auto theirs = loadMeasurement(remote.toStdString());
    QVERIFY2(theirs.ok(), theirs.ok() ? "" : theirs.error().message.c_str());
    QCOMPARE(theirs->loss.size(), mine.loss.size());
    for (std::size_t i = 0; i < mine.loss.size(); ++i)
        QCOMPARE(theirs->loss[i], mine.loss[i]);
    QCOMPARE(theirs->ranks.size(), mine.ranks.size());
    // run.plan names the plan as this machine has it, not the ranks' uploaded copy, so
    // `calibrate --measured` finds it without --plan.
    const QFileInfo recordedPlan(QString::fromStdString(theirs->run.planFile));
    QVERIFY2(recordedPlan.isAbsolute(), theirs->run.planFile.c_str());
    QCOMPARE(recordedPlan.canonicalFilePath(),
             QFileInfo(runtimeData("asymmetric.plan.json")).canonicalFilePath());
    // The launch compares with the prediction of the run as it trained, the figures
    // `evaluate --measured` prints for the same file, not with the plan at full size.
    const CliRun evaluated
        = runCli({QStringLiteral("evaluate"), QStringLiteral("--plan"),
                  runtimeData("asymmetric.plan.json"), QStringLiteral("--model"),
                  runtimeData("tiny.model.json"), QStringLiteral("--measured"), remote});
    QVERIFY2(evaluated.exitCode == 0, qPrintable(evaluated.err));
    const auto iterationRow = [](const QString &text) {
        const QString table = text.section(QStringLiteral("The run as it trained"), 1);
        for (const QString &line : table.split(u'\n'))
            if (line.startsWith(QLatin1String("iteration ")))
                return line.simplified().section(u' ', 0, 2); // what, predicted, measured
        return QString();
    };
    QVERIFY2(!iterationRow(evaluated.out).isEmpty(), qPrintable(evaluated.out));
    QCOMPARE(iterationRow(launch.out), iterationRow(evaluated.out));
    // The keys were recorded, and every host's job folder is gone.
    QVERIFY(QFile::exists(m_knownHosts));
    for (int i = 0; i < kHosts; ++i)
        QVERIFY2(QDir(m_dir.filePath(QStringLiteral("host-%1").arg(i)))
                     .entryList(QDir::NoDotAndDotDot | QDir::AllEntries)
                     .isEmpty(),
                 "a job folder was left behind");
    expectNothingLeft("after the job");
}

void TestLaunch::unknownHostKeyIsRefused()
{
    const QString fresh = m_dir.filePath(QStringLiteral("fresh_known_hosts"));
    const CliRun run
        = runCli(launchArgs(hostsFile(QStringLiteral("hosts.json")), fresh, false), 60);
    QCOMPARE(run.exitCode, 2);
    const QString fingerprint = m_hosts.sshd(0).fingerprint(QStringLiteral("host_a"));
    QVERIFY2(!fingerprint.isEmpty() && run.err.contains(fingerprint), qPrintable(run.err));
    QVERIFY2(run.err.contains(QLatin1String("--accept-new-host-keys")), qPrintable(run.err));
    QVERIFY2(run.err.contains(QLatin1String("nothing was started")), qPrintable(run.err));
    QVERIFY(!QFile::exists(fresh) || QFile(fresh).size() == 0);
    expectNothingLeft("after a refused key");
}

void TestLaunch::wrongUserKeyFails()
{
    const QString hosts = hostsFile(QStringLiteral("stranger.json"), [this](int i, QJsonObject &e) {
        if (i == 1)
            e[QStringLiteral("identity")] = m_hosts.sshd(i).path(QStringLiteral("stranger"));
    });
    const CliRun run = runCli(launchArgs(hosts, m_knownHosts), 60);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(
        run.err.contains(m_hosts.address(1) + QStringLiteral(":22: the server refused the key")),
        qPrintable(run.err));
    QVERIFY2(run.err.contains(QLatin1String("authorized_keys")), qPrintable(run.err));
    expectNothingLeft("after a refused user key");
}

void TestLaunch::unreachableHostFailsPreflight()
{
    const QString hosts
        = hostsFile(QStringLiteral("unreachable.json"), [this](int i, QJsonObject &e) {
              if (i == 2)
                  e[QStringLiteral("host")] = m_hosts.unusedAddress();
          });
    QStringList args = launchArgs(hosts, m_knownHosts);
    args[args.indexOf(QStringLiteral("--connect-timeout-s")) + 1] = QStringLiteral("3");
    const CliRun run = runCli(args, 60);
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(m_hosts.unusedAddress() + QStringLiteral(":22: connecting failed")),
             qPrintable(run.err));
    QVERIFY2(run.err.contains(QLatin1String("failed on 1 of 3 host(s); nothing was started")),
             qPrintable(run.err));
    // Bounded by the connect timeout (3 s), with room for a loaded machine.
    QVERIFY2(run.seconds < 15, qPrintable(QString::number(run.seconds)));
    qInfo("an unreachable host failed preflight after %.1f s (connect timeout 3 s)", run.seconds);
    expectNothingLeft("after a failed preflight");
    // Not even the job's files reached the hosts that answered.
    for (int i = 0; i < 2; ++i)
        QVERIFY(QDir(m_dir.filePath(QStringLiteral("host-%1").arg(i)))
                    .entryList(QDir::NoDotAndDotDot | QDir::AllEntries)
                    .isEmpty());
}

void TestLaunch::cancelStopsEveryRank()
{
    LiveLaunch launch;
    launch.start(launchArgs(hostsFile(QStringLiteral("hosts.json")), m_knownHosts)
                 << QStringLiteral("--iterations") << QStringLiteral("1000000"));
    QVERIFY2(launch.waitFor(QStringLiteral("[rank 0 "), 60000),
             qPrintable(launch.out + launch.err));
    QVERIFY2(!m_hosts.jobProcesses().isEmpty(), "the ranks should be running");
    QElapsedTimer stop;
    stop.start();
    ::kill(pid_t(launch.process.processId()), SIGINT);
    qint64 lastGoneMs = -1;
    while (stop.elapsed() < 30000) {
        if (m_hosts.jobProcesses().isEmpty()) {
            lastGoneMs = stop.elapsed();
            break;
        }
        QThread::msleep(10);
    }
    const int code = launch.finish(60000);
    QCOMPARE(code, 130);
    QVERIFY2(launch.err.contains(QLatin1String("cancelled")), qPrintable(launch.err));
    QVERIFY2(lastGoneMs >= 0, qPrintable(m_hosts.jobProcesses().join(QStringLiteral(", "))));
    qInfo("cancel: every process of the job gone %lld ms after SIGINT; launch exited after %lld ms",
          lastGoneMs, stop.elapsed());
    expectNothingLeft("after cancel");
    for (int i = 0; i < kHosts; ++i)
        expectHostClean(i);
}

// 8 ranks on one host: how long until the first rank speaks, and from Cancel until the last
// process of the job is gone; nothing stays behind.
void TestLaunch::cancelEightRanksOnOneHost()
{
    LiveLaunch launch;
    launch.start(nodeLaunchArgs(8) << QStringLiteral("--iterations") << QStringLiteral("1000000"));
    QVERIFY2(launch.waitFor(QStringLiteral("[rank 0 "), 60000),
             qPrintable(launch.out + launch.err));
    int ranks = 0;
    for (int pid : m_hosts.pids(0))
        ranks += isRank(pid) ? 1 : 0;
    QCOMPARE(ranks, 8);
    QElapsedTimer stop;
    stop.start();
    ::kill(pid_t(launch.process.processId()), SIGINT);
    qint64 lastGoneMs = -1;
    while (stop.elapsed() < 30000) {
        if (m_hosts.jobProcesses(0).isEmpty()) {
            lastGoneMs = stop.elapsed();
            break;
        }
        QThread::msleep(10);
    }
    QCOMPARE(launch.finish(60000), 130);
    QVERIFY2(lastGoneMs >= 0, qPrintable(m_hosts.jobProcesses(0).join(QStringLiteral(", "))));
    qInfo("8 ranks on one host: first rank output %lld ms after launch started; every process "
          "gone %lld ms after SIGINT; launch exited after %lld ms",
          launch.firstRankOutputMs, lastGoneMs, stop.elapsed());
    expectHostClean(0);
    expectNothingLeft("after cancel");
}

// The launcher itself dies (SIGKILL: no chance to cancel): each agent, its channel gone, stops
// its ranks and removes its job folder.
void TestLaunch::killedLauncherLeavesNothing()
{
    LiveLaunch launch;
    launch.start(launchArgs(hostsFile(QStringLiteral("hosts.json")), m_knownHosts)
                 << QStringLiteral("--iterations") << QStringLiteral("1000000"));
    QVERIFY2(launch.waitFor(QStringLiteral("[rank 0 "), 60000),
             qPrintable(launch.out + launch.err));
    QElapsedTimer killed;
    killed.start();
    launch.process.kill();
    launch.process.waitForFinished(10000);
    bool clean = false;
    while (!clean && killed.elapsed() < 10000) {
        clean = m_hosts.jobProcesses().isEmpty();
        for (int i = 0; i < kHosts; ++i)
            clean = clean && jobFolders(i).isEmpty() && jobListeners(i).isEmpty();
        if (!clean)
            QThread::msleep(50);
    }
    qInfo("launcher killed: nothing of the job left on any host after %lld ms", killed.elapsed());
    for (int i = 0; i < kHosts; ++i)
        expectHostClean(i);
    expectNothingLeft("after the launcher was killed");
}

void TestLaunch::deadRankStopsTheJob()
{
    LiveLaunch launch;
    launch.start(launchArgs(hostsFile(QStringLiteral("hosts.json")), m_knownHosts)
                 << QStringLiteral("--iterations") << QStringLiteral("1000000"));
    QVERIFY2(launch.waitFor(QStringLiteral("[rank 0 "), 60000),
             qPrintable(launch.out + launch.err));
    // Host C (namespace 2) runs rank 3 of the asymmetric plan.
    int victim = -1;
    for (const QString &p : m_hosts.jobProcesses(2))
        if (p.endsWith(QLatin1String(" hetplan-worker")))
            victim = p.section(QLatin1Char(' '), 0, 0).toInt();
    QVERIFY2(victim > 0, qPrintable(m_hosts.jobProcesses(2).join(QStringLiteral(", "))));
    ::kill(victim, SIGKILL);
    const int code = launch.finish(60000);
    QCOMPARE(code, 1);
    QVERIFY2(launch.err.contains(QStringLiteral("rank 3 on ") + m_hosts.address(2)
                                 + QStringLiteral(":22 failed (killed by signal 9)")),
             qPrintable(launch.err));
    QVERIFY2(launch.err.contains(QLatin1String("every rank on every host was stopped")),
             qPrintable(launch.err));
    expectNothingLeft("after a rank died");
}

// Host C's sshd dies mid-run, every process of it (the listener and the sessions): the
// launcher names the host, stops the others, and the agent on C, its channel gone, stops its
// rank and removes the job folder within 10 s.
void TestLaunch::droppedHostStopsTheJob()
{
    LiveLaunch launch;
    launch.start(launchArgs(hostsFile(QStringLiteral("hosts.json")), m_knownHosts)
                 << QStringLiteral("--iterations") << QStringLiteral("1000000"));
    QVERIFY2(launch.waitFor(QStringLiteral("[rank 0 "), 60000),
             qPrintable(launch.out + launch.err));
    QVERIFY(!m_hosts.jobProcesses(2).isEmpty());
    QElapsedTimer dropped;
    dropped.start();
    QVERIFY(killSshd(2) > 1);
    qint64 goneMs = -1;
    while (dropped.elapsed() < 10000) {
        if (m_hosts.jobProcesses(2).isEmpty() && jobFolders(2).isEmpty()
            && jobListeners(2).isEmpty()) {
            goneMs = dropped.elapsed();
            break;
        }
        QThread::msleep(50);
    }
    const int code = launch.finish(60000);
    // The next tests need host C's sshd again.
    m_hosts.sshd(2).stop(); // reaps the killed one
    const bool restarted
        = m_hosts.sshd(2).startAt(QStringLiteral("host_a"), m_hosts.address(2), 22,
                                  {findTool(QStringLiteral("ip")), QStringLiteral("netns"),
                                   QStringLiteral("exec"), m_hosts.name(2)});
    QVERIFY2(goneMs >= 0, qPrintable(QStringLiteral("left on host C 10 s after its sshd died: ")
                                     + m_hosts.jobProcesses(2).join(QStringLiteral(", "))
                                     + jobFolders(2).join(QStringLiteral(", "))));
    qInfo("sshd killed: nothing of the job left on that host after %lld ms", goneMs);
    QCOMPARE(code, 1);
    const QString host = m_hosts.address(2) + QStringLiteral(":22");
    QVERIFY2(launch.err.contains(QStringLiteral("host ") + host + QStringLiteral(" disconnected")),
             qPrintable(launch.err));
    QVERIFY2(launch.err.contains(QStringLiteral("those on ") + host + QStringLiteral(" could not")),
             qPrintable(launch.err));
    QVERIFY2(restarted, qPrintable(m_hosts.sshd(2).error()));
    expectNothingLeft("after a host dropped");
}

void TestLaunch::ownCommandRunsPerRank()
{
    const CliRun run = runCli(
        launchArgs(hostsFile(QStringLiteral("hosts.json")), m_knownHosts)
            << QStringLiteral("--command") << QStringLiteral("bash") << QStringLiteral("-c")
            << QStringLiteral(
                   "echo \"env $RANK/$WORLD_SIZE local $LOCAL_RANK master "
                   "$MASTER_ADDR:$MASTER_PORT job $HETPLAN_JOB_ID\"; test -f \"$HETPLAN_PLAN\" && "
                   "if (exec 3<>\"/dev/tcp/$MASTER_ADDR/$MASTER_PORT\") 2>/dev/null; then "
                   "echo port taken; else echo port free; fi"),
        60);
    QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
    // The asymmetric plan: ranks 0 and 1 on A, 2, 4 and 5 on B, 3 on C.
    const int hostOf[] = {0, 0, 1, 2, 1, 1};
    const int localRank[] = {0, 1, 0, 0, 1, 2};
    for (int rank = 0; rank < 6; ++rank) {
        const QString line = QStringLiteral("[rank %1 %2:22] env %1/6 local %3 master %4:")
                                 .arg(rank)
                                 .arg(m_hosts.address(hostOf[rank]))
                                 .arg(localRank[rank])
                                 .arg(m_hosts.address(0));
        QVERIFY2(run.out.contains(line), qPrintable(line + QStringLiteral("\n") + run.out));
    }
    // MASTER_PORT is left for the command's own rendezvous.
    QCOMPARE(run.out.count(QLatin1String("] port free")), 6);
    expectNothingLeft("after the person's own command");
}

void TestLaunch::probeEveryHost()
{
    const QString out = m_dir.filePath(QStringLiteral("cluster.probe.json"));
    const CliRun run = runCli(
        {QStringLiteral("probe"), QStringLiteral("--hosts"),
         hostsFile(QStringLiteral("hosts.json")), QStringLiteral("--known-hosts"), m_knownHosts,
         QStringLiteral("--accept-new-host-keys"), QStringLiteral("--out"), out,
         QStringLiteral("--quick"), QStringLiteral("--no-gpu"), QStringLiteral("--model"),
         runtimeData("tiny.model.json"), QStringLiteral("--seq-len"), QStringLiteral("16"),
         QStringLiteral("--triad-mib"), QStringLiteral("4")},
        120);
    QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
    auto text = readTextFile(out.toStdString());
    QVERIFY(text.ok());
    auto probe = parseProbe(*text, out.toStdString());
    QVERIFY2(probe.ok(), probe.ok() ? "" : probe.error().message.c_str());
    QCOMPARE(probe->hosts.size(), std::size_t(kHosts));
    for (int i = 0; i < kHosts; ++i)
        QCOMPARE(probe->hosts[std::size_t(i)].name, std::string(kMachines[i]));
    QCOMPARE(probe->pairs.size(), std::size_t(kHosts * (kHosts - 1) / 2));
    expectNothingLeft("after probing");
}

HETPLAN_TEST_GUILESS_MAIN(TestLaunch)
#include "tst_launch.moc"
