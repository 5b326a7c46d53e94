// `hetplan-worker agent` (docs/launcher.md, "The host agent") with this test as its launcher:
// real ranks meet through its store socket and train as a local run does; Cancel, a launcher
// gone and a broken frame leave no process, no socket and no job folder; a rank that floods its
// output does not grow the agent; only the job's user reaches the store.
#include "agent_fixture.h"
#include "core/cost/measurement.h"
#include "core/io/files.h"
#include "core/io/measurement_json.h"
#include "core/launch/worker_command.h"
#include "run_test_support.h"
#include "runtime/comm/socket_store.h"
#include "tests/test_registry.h"

#include <QDir>
#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace hetplan;
using namespace hetplan::agent;
using namespace hetplan::agent::test;

namespace {

// A job folder inside a temporary folder: the agent removes the job folder itself.
struct JobFolder
{
    QTemporaryDir parent;
    QString path;
    JobFolder()
        : path(parent.path() + QStringLiteral("/job"))
    {
        QDir().mkpath(path);
    }
    bool gone() const { return !QFileInfo::exists(path); }
    // A job in this folder, stopped with a grace period of 1 s.
    AgentSpec spec() const
    {
        AgentSpec spec;
        spec.jobDir = path.toStdString();
        spec.graceS = 1;
        return spec;
    }
};

RankSpec shellRank(int rank, const std::string &script)
{
    return {rank, {"/bin/sh", "-c", script}, {}, {}};
}

// Ranks 0 … count − 1 that print "start" (waitUntilStarted()) and sleep.
void addSleepers(AgentSpec &spec, int count, int sleepS = 30)
{
    for (int r = 0; r < count; ++r)
        spec.ranks.push_back(shellRank(r, "echo start; sleep " + std::to_string(sleepS)));
}

std::vector<Frame> ofKind(const std::vector<Frame> &frames, FrameKind kind)
{
    std::vector<Frame> out;
    for (const Frame &f : frames)
        if (f.kind == kind)
            out.push_back(f);
    return out;
}

std::string joined(const std::vector<Frame> &frames, FrameKind kind)
{
    std::string text;
    for (const Frame &f : ofKind(frames, kind)) {
        text += f.payload;
        text += '\n';
    }
    return text;
}

// Reads frames until every rank of `ranks` sent Started and then printed "start"; their pids.
std::vector<pid_t> waitUntilStarted(AgentFixture &agent, int ranks)
{
    std::vector<pid_t> pids;
    int printed = 0;
    while (printed < ranks) {
        auto frame = agent.next();
        if (!frame)
            break;
        if (frame->kind == FrameKind::Started)
            pids.push_back(pid_t(std::stol(frame->payload)));
        if (frame->kind == FrameKind::Stdout && frame->payload.find("start") != std::string::npos)
            ++printed;
    }
    return pids;
}

// No process is left of any of `pids`, nor of their process groups.
bool nothingLeft(const std::vector<pid_t> &pids)
{
    for (pid_t pid : pids) {
        const int self = ::kill(pid, 0) == 0 ? 0 : errno;
        const int group = ::kill(-pid, 0) == 0 ? 0 : errno;
        if (self != ESRCH || group != ESRCH) {
            qWarning("process %d: %d, group %d", int(pid), self, group);
            return false;
        }
    }
    return true;
}

long residentKiB(qint64 pid)
{
    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : status.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').front().toLong();
    return -1;
}

std::string cat(std::initializer_list<std::string_view> parts)
{
    std::string text;
    for (std::string_view part : parts)
        text += part;
    return text;
}

} // namespace

class TestAgent : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void realRanksTrainAsALocalRunDoes_data();
    void realRanksTrainAsALocalRunDoes();
    void cancelStopsEveryRankAndRemovesTheFolder();
    void launcherGoneStopsTheJob();
    void closedStdoutStopsTheJob();
    void floodingRankKeepsTheAgentSmall();
    void storeSocketIsTheJobUsersAlone();
    void storeRequestsFindTheirRank();
    void malformedFrameStopsTheJob();
    void refusesAJobFolderItDoesNotRunIn();
    void rankThatCannotRunIsReported();
    void missingResultIsAMessage();
    void escapedProcessIsKilledBeforeFinished();
    void signalToTheAgentStopsTheJob();
    void silentLauncherStopsTheJob();
};

// (a) Real ranks meet through the agent's store socket, exit 0 and return results whose losses
// equal `hetplan-cli run`'s for the same plan: a TP 2 → TP 1 plan, and HexiScale's case study
// with its 8 ranks on one host (an 8-GPU node).
void TestAgent::realRanksTrainAsALocalRunDoes_data()
{
    using runtime::test::runtimeData;
    QTest::addColumn<QString>("plan");
    QTest::addColumn<QString>("model"); // empty: the plan's
    QTest::addColumn<int>("scale");
    QTest::addColumn<int>("iterations");
    QTest::addColumn<int>("world");
    QTest::newRow("TP 2 then TP 1, 3 ranks")
        << runtimeData("tp2-tp1.plan.json") << runtimeData("tiny.model.json") << 1 << 3 << 3;
    QTest::newRow("case study at scale 64, 8 ranks")
        << runtimeData("case-study.plan.json") << QString() << 64 << 1 << 8;
}

void TestAgent::realRanksTrainAsALocalRunDoes()
{
    QFETCH(QString, plan);
    QFETCH(QString, model);
    QFETCH(int, scale);
    QFETCH(int, iterations);
    QFETCH(int, world);
    QTemporaryDir dir;
    const QString localOut = dir.filePath(QStringLiteral("local.json"));
    QStringList args
        = {QStringLiteral("run"),       QStringLiteral("--plan"), plan,
           QStringLiteral("--scale"),   QString::number(scale),   QStringLiteral("--iterations"),
           QString::number(iterations), QStringLiteral("--out"),  localOut};
    if (!model.isEmpty())
        args << QStringLiteral("--model") << model;
    const runtime::test::CliRun local = runtime::test::runCli(args);
    QVERIFY2(local.exitCode == 0, qPrintable(local.out + local.err));
    auto expected = loadMeasurement(localOut.toStdString());
    QVERIFY(expected.ok());
    QCOMPARE(int(expected->ranks.size()), world);

    JobFolder job;
    AgentSpec spec = job.spec();
    spec.serveStore = true;
    for (int r = 0; r < world; ++r) {
        WorkerCommand command;
        command.plan = plan.toStdString();
        if (!model.isEmpty())
            command.model = model.toStdString();
        command.scale = scale;
        command.iterations = iterations;
        command.rank = r;
        command.world = world;
        command.comm.rendezvous = cat({"unix:", spec.jobDir, "/", kStoreSocketName});
        command.comm.timeoutS = 60;
        command.out = "rank-" + std::to_string(r) + ".json";
        spec.ranks.push_back(
            {r,
             workerCommandLine(hetplan::test::projectProgram("hetplan-worker").toStdString(),
                               command),
             {{"OPENBLAS_NUM_THREADS", "1"}},
             command.out});
    }
    AgentFixture agent(job.path);
    auto ready = agent.next();
    QVERIFY(ready && ready->kind == FrameKind::Ready);
    QCOMPARE(QString::fromStdString(ready->payload).section(QLatin1Char(' '), 0, 0),
             QStringLiteral("hetplan-worker"));
    agent.sendSpec(spec);
    const std::vector<Frame> frames = agent.untilFinished(240000);
    QVERIFY2(!frames.empty() && frames.back().kind == FrameKind::Finished,
             joined(frames, FrameKind::Stderr).c_str());
    QCOMPARE(agent.exitCode(), 0);
    QVERIFY(job.gone());

    QCOMPARE(int(ofKind(frames, FrameKind::Exited).size()), world);
    for (const Frame &exited : ofKind(frames, FrameKind::Exited))
        QVERIFY2(exited.payload == "exit 0", joined(frames, FrameKind::Stderr).c_str());
    std::vector<Measurement> parts;
    for (const Frame &result : ofKind(frames, FrameKind::Result)) {
        auto part = parseMeasurement(result.payload, "rank " + std::to_string(result.rank));
        QVERIFY2(part.ok(), part.ok() ? "" : part.error().message.c_str());
        parts.push_back(std::move(part).value());
    }
    auto merged = mergeRankMeasurements(std::move(parts));
    QVERIFY2(merged.ok(), merged.ok() ? "" : merged.error().message.c_str());
    QCOMPARE(merged->ranks.size(), expected->ranks.size());
    QCOMPARE(merged->loss, expected->loss);
}

// (b) Cancel: TERM to every group, KILL after the grace period for a rank that ignores TERM,
// reported; within grace + 2 s no process of any rank is left and the folder is gone.
void TestAgent::cancelStopsEveryRankAndRemovesTheFolder()
{
    JobFolder job;
    AgentSpec spec = job.spec();
    addSleepers(spec, 16);
    spec.ranks.push_back(shellRank(16, "trap '' TERM; echo start; sleep 30"));
    AgentFixture agent(job.path);
    agent.sendSpec(spec);
    const std::vector<pid_t> pids = waitUntilStarted(agent, 17);
    QCOMPARE(int(pids.size()), 17);

    QElapsedTimer clock;
    clock.start();
    agent.send({FrameKind::Cancel, -1, {}});
    const std::vector<Frame> frames = agent.untilFinished();
    QCOMPARE(agent.exitCode(), 0);
    const double stoppedS = double(clock.elapsed()) / 1000.0;
    qInfo("Cancel to Finished: %.2f s", stoppedS);
    QVERIFY2(stoppedS <= spec.graceS + 2, qPrintable(QString::number(stoppedS)));
    QVERIFY(!frames.empty() && frames.back().kind == FrameKind::Finished);
    QVERIFY(nothingLeft(pids));
    QVERIFY(job.gone());

    const std::vector<Frame> exited = ofKind(frames, FrameKind::Exited);
    QCOMPARE(int(exited.size()), 17);
    for (const Frame &f : exited)
        QCOMPARE(f.payload, f.rank == 16 ? std::string("signal 9") : std::string("signal 15"));
    QVERIFY2(joined(frames, FrameKind::Message).find("1 rank(s) killed after TERM")
                 != std::string::npos,
             joined(frames, FrameKind::Message).c_str());
}

// (c) The launcher's end of the channel closes mid-run: the same cleanup, and a non-zero exit.
void TestAgent::launcherGoneStopsTheJob()
{
    JobFolder job;
    AgentSpec spec = job.spec();
    spec.serveStore = true;
    addSleepers(spec, 4);
    AgentFixture agent(job.path);
    agent.sendSpec(spec);
    const std::vector<pid_t> pids = waitUntilStarted(agent, 4);
    QCOMPARE(int(pids.size()), 4);
    QVERIFY(QFileInfo::exists(job.path + QStringLiteral("/store.sock")));

    agent.process().closeWriteChannel();
    const std::vector<Frame> frames = agent.untilFinished();
    QCOMPARE(agent.exitCode(), 1);
    QVERIFY(!frames.empty() && frames.back().kind == FrameKind::Finished);
    QVERIFY(nothingLeft(pids));
    QVERIFY(job.gone());
}

// The launcher's end of the agent's stdout closes (here a `head` that reads 60 bytes and
// exits): the next frame the agent writes fails (SIGPIPE ignored), and that ends the job as a
// closed stdin does. The ranks write their pids beside the job folder, since no frame arrives.
void TestAgent::closedStdoutStopsTheJob()
{
    JobFolder job;
    AgentSpec spec = job.spec();
    for (int r = 0; r < 2; ++r)
        spec.ranks.push_back(shellRank(r, "echo $$ >> ../pids; exec sleep 30"));
    QProcess agent;
    agent.setWorkingDirectory(job.path);
    agent.start(QStringLiteral("/bin/sh"),
                {QStringLiteral("-c"), QStringLiteral("\"$0\" agent | head -c 60 > /dev/null"),
                 hetplan::test::projectProgram("hetplan-worker")});
    QVERIFY(agent.waitForStarted());
    const std::string bytes = encodeFrame({FrameKind::Spec, -1, encodeSpec(spec)});
    agent.write(bytes.data(), qint64(bytes.size()));
    QVERIFY(agent.waitForBytesWritten());
    // No Cancel and no end of stdin: only the failed write can stop the job.
    QElapsedTimer clock;
    clock.start();
    while (!job.gone() && clock.elapsed() < 30000)
        QTest::qSleep(100);
    agent.closeWriteChannel();
    QVERIFY(agent.waitForFinished(10000));
    QVERIFY(job.gone());
    QFile pidFile(job.parent.filePath(QStringLiteral("pids")));
    QVERIFY(pidFile.open(QIODevice::ReadOnly));
    std::vector<pid_t> pids;
    for (const QByteArray &line : pidFile.readAll().split('\n'))
        if (!line.trimmed().isEmpty())
            pids.push_back(pid_t(line.trimmed().toLong()));
    QCOMPARE(int(pids.size()), 2);
    QVERIFY(nothingLeft(pids));
}

// (d) A rank prints 96 MiB without a newline while the launcher reads nothing for a while: the
// agent holds a bounded queue (the rank blocks on its pipe), and every byte arrives in the end.
// The agent's memory is measured against its own at the start (the worker's libraries).
void TestAgent::floodingRankKeepsTheAgentSmall()
{
    constexpr long kOutputBytes = 96L << 20;
    constexpr long kMaxGrowthKiB = 32 * 1024;
    JobFolder job;
    AgentSpec spec = job.spec();
    spec.ranks.push_back(
        shellRank(0, "head -c " + std::to_string(kOutputBytes) + " /dev/zero | tr '\\0' x"));
    AgentFixture agent(job.path);
    auto frame = agent.next();
    QVERIFY(frame && frame->kind == FrameKind::Ready);
    const long idleKiB = residentKiB(agent.pid());
    agent.sendSpec(spec);
    std::this_thread::sleep_for(std::chrono::seconds(3)); // the test reads nothing meanwhile
    long peakKiB = residentKiB(agent.pid());
    qInfo("agent VmRSS idle %ld KiB, while its launcher reads nothing %ld KiB", idleKiB, peakKiB);

    long received = 0;
    for (;;) {
        frame = agent.next();
        QVERIFY(frame.has_value());
        if (frame->kind == FrameKind::Stdout) {
            QVERIFY(frame->payload.size() <= kMaxOutputPieceBytes);
            received += long(frame->payload.size());
            if (received % (8L << 20) < long(kMaxOutputPieceBytes))
                peakKiB = std::max(peakKiB, residentKiB(agent.pid()));
        }
        if (frame->kind == FrameKind::Finished)
            break;
    }
    QCOMPARE(received, kOutputBytes);
    QCOMPARE(agent.exitCode(), 0);
    QVERIFY2(idleKiB > 0 && peakKiB - idleKiB < kMaxGrowthKiB,
             qPrintable(QStringLiteral("grew by %1 KiB").arg(peakKiB - idleKiB)));
}

// (e) The store socket is 0600 in a 0700 job folder: a process of another user (uid nobody)
// is refused at connect, the job's user gets through to the launcher's keys.
void TestAgent::storeSocketIsTheJobUsersAlone()
{
    if (::geteuid() != 0)
        QSKIP("connecting as uid nobody needs root");
    // The system's python: a user's own (pyenv …) may be out of uid nobody's reach.
    const QString python = QStringLiteral("/usr/bin/python3");
    if (QStandardPaths::findExecutable(QStringLiteral("setpriv")).isEmpty()
        || !QFileInfo(python).isExecutable())
        QSKIP("setpriv or /usr/bin/python3 is missing (Debian: util-linux, python3)");
    JobFolder job;
    ::chmod(QFile::encodeName(job.parent.path()).constData(), 0755);
    AgentSpec spec = job.spec();
    spec.serveStore = true;
    addSleepers(spec, 1);
    AgentFixture agent(job.path);
    agent.sendSpec(spec);
    QCOMPARE(int(waitUntilStarted(agent, 1).size()), 1);
    const QString socket = job.path + QStringLiteral("/store.sock");
    QCOMPARE(int(QFileInfo(job.path).permissions() & 0x7777), 0x7700);
    struct stat info
    {
    };
    QCOMPARE(::stat(QFile::encodeName(socket).constData(), &info), 0);
    QCOMPARE(int(info.st_mode & 07777), 0600);

    const QString connect = QStringLiteral(
        "import socket,sys\ns=socket.socket(socket.AF_UNIX)\ntry:\n s.connect(sys.argv[1])\n"
        "except OSError as e:\n print(e.strerror)\n sys.exit(3)\nprint('connected')\n");
    QProcess other;
    other.start(QStringLiteral("setpriv"),
                {QStringLiteral("--reuid=65534"), QStringLiteral("--regid=65534"),
                 QStringLiteral("--clear-groups"), python, QStringLiteral("-c"), connect, socket});
    QVERIFY(other.waitForFinished(20000));
    const QString said = QString::fromUtf8(other.readAll()).trimmed();
    QCOMPARE(other.exitCode(), 3);
    QCOMPARE(said, QStringLiteral("Permission denied"));

    QProcess self;
    self.start(python, {QStringLiteral("-c"), connect, socket});
    QVERIFY(self.waitForFinished(20000));
    QCOMPARE(QString::fromUtf8(self.readAll()).trimmed(), QStringLiteral("connected"));
    agent.send({FrameKind::Cancel, -1, {}});
    agent.untilFinished();
    QCOMPARE(agent.exitCode(), 0);
    QVERIFY(job.gone());
}

// Two clients of the store socket, as two ranks: each reply reaches the one that asked, and the
// late answer to a request of a client that left goes nowhere.
void TestAgent::storeRequestsFindTheirRank()
{
    JobFolder job;
    AgentSpec spec = job.spec();
    spec.serveStore = true;
    addSleepers(spec, 1);
    AgentFixture agent(job.path);
    agent.sendSpec(spec);
    QCOMPARE(int(waitUntilStarted(agent, 1).size()), 1);
    const std::string socket = cat({spec.jobDir, "/", kStoreSocketName});
    std::string gone;
    std::string first;
    std::string second;
    std::atomic<int> done = 0;
    std::thread ranks([&] {
        const auto run
            = [&](std::string &out, const std::function<void(runtime::SocketStore &)> &body) {
                  try {
                      auto store = runtime::SocketStore::connect(socket, std::chrono::seconds(10));
                      if (!store)
                          out = store.error().message;
                      else
                          body(**store);
                  } catch (const std::exception &e) {
                      out = e.what();
                  }
              };
        // Asks for a key nobody has set yet, gives up, and disconnects.
        run(gone,
            [](runtime::SocketStore &s) { s.wait({"late"}, std::chrono::milliseconds(200)); });
        std::thread other([&] {
            run(second, [](runtime::SocketStore &s) {
                s.set("late", {'L'});
                s.set("b", {'2'});
                s.wait({"a"});
                const std::vector<char> a = s.get("a");
                if (a != std::vector<char>{'1'})
                    throw std::runtime_error("second got the wrong value for a");
            });
        });
        run(first, [](runtime::SocketStore &s) {
            s.set("a", {'1'});
            const std::vector<char> b = s.get("b");
            if (b != std::vector<char>{'2'})
                throw std::runtime_error("first got the wrong value for b");
        });
        other.join();
        done = 1;
    });
    QElapsedTimer clock;
    clock.start();
    while (!done && clock.elapsed() < 30000)
        agent.next(50);
    ranks.join();
    QVERIFY2(gone.find("wait for 'late' timed out") != std::string::npos, gone.c_str());
    QVERIFY2(first.empty(), first.c_str());
    QVERIFY2(second.empty(), second.c_str());
    agent.send({FrameKind::Cancel, -1, {}});
    agent.untilFinished();
    QCOMPARE(agent.exitCode(), 0);
    QVERIFY(job.gone());
}

// (f) A frame of an unknown kind from the launcher: nothing after it can be trusted, so the
// agent stops every rank, cleans up and exits non-zero.
void TestAgent::malformedFrameStopsTheJob()
{
    JobFolder job;
    AgentSpec spec = job.spec();
    addSleepers(spec, 2);
    AgentFixture agent(job.path);
    agent.sendSpec(spec);
    const std::vector<pid_t> pids = waitUntilStarted(agent, 2);
    QCOMPARE(int(pids.size()), 2);
    agent.process().write(QByteArray("\x63\xff\xff\xff\xff\x00\x00\x00\x00", 9));
    const std::vector<Frame> frames = agent.untilFinished();
    QCOMPARE(agent.exitCode(), 1);
    QVERIFY(nothingLeft(pids));
    QVERIFY(job.gone());
    QVERIFY2(joined(frames, FrameKind::Message).find("unknown frame kind 99") != std::string::npos,
             joined(frames, FrameKind::Message).c_str());
}

// The folder the agent removes at the end must be the one it runs in.
void TestAgent::refusesAJobFolderItDoesNotRunIn()
{
    JobFolder job;
    QTemporaryDir other;
    AgentSpec spec;
    spec.jobDir = other.path().toStdString();
    spec.ranks.push_back(shellRank(0, "echo start"));
    AgentFixture agent(job.path);
    agent.sendSpec(spec);
    const std::vector<Frame> frames = agent.untilFinished();
    QCOMPARE(agent.exitCode(), 2);
    QVERIFY(ofKind(frames, FrameKind::Started).empty());
    QVERIFY2(joined(frames, FrameKind::Message).find("refused the job") != std::string::npos,
             joined(frames, FrameKind::Message).c_str());
    QVERIFY(QFileInfo::exists(other.path()));
    QVERIFY(!job.gone());
}

// A rank whose program is missing: a Message that says which and why, then its Exited.
void TestAgent::rankThatCannotRunIsReported()
{
    JobFolder job;
    AgentSpec spec = job.spec();
    spec.ranks.push_back(shellRank(0, "echo fine"));
    spec.ranks.push_back({3, {"/nonexistent/hetplan-worker", "--version"}, {}, {}});
    AgentFixture agent(job.path);
    agent.sendSpec(spec);
    const std::vector<Frame> frames = agent.untilFinished();
    QCOMPARE(agent.exitCode(), 0);
    QVERIFY(joined(frames, FrameKind::Message)
                .find("rank 3: cannot run /nonexistent/hetplan-worker: No such file or directory")
            != std::string::npos);
    for (const Frame &f : ofKind(frames, FrameKind::Exited))
        QCOMPARE(f.payload, f.rank == 3 ? std::string("exit 127") : std::string("exit 0"));
    QCOMPARE(joined(frames, FrameKind::Stdout), std::string("fine\n\n"));
    QVERIFY(job.gone());
}

// A rank that exits 0 without its result file: Exited stays "exit 0", a Message says why there
// is no Result (the launcher decides).
void TestAgent::missingResultIsAMessage()
{
    JobFolder job;
    AgentSpec spec = job.spec();
    spec.ranks.push_back({0, {"/bin/true"}, {}, "rank-0.json"});
    AgentFixture agent(job.path);
    agent.sendSpec(spec);
    const std::vector<Frame> frames = agent.untilFinished();
    QCOMPARE(agent.exitCode(), 0);
    QVERIFY(ofKind(frames, FrameKind::Result).empty());
    QCOMPARE(ofKind(frames, FrameKind::Exited).size(), std::size_t(1));
    QCOMPARE(ofKind(frames, FrameKind::Exited).front().payload, std::string("exit 0"));
    const std::string messages = joined(frames, FrameKind::Message);
    QVERIFY2(messages.find("rank 0: exited 0 but its result") != std::string::npos,
             messages.c_str());
}

// A rank leaves a process in a session of its own holding its stdout: the rank still ends
// (its pipe is let go once empty), and that process is killed before Finished.
void TestAgent::escapedProcessIsKilledBeforeFinished()
{
    JobFolder job;
    AgentSpec spec = job.spec();
    // The rank ends only once the other process is in its own session (it wrote its pid).
    spec.ranks.push_back(shellRank(0, "setsid sh -c 'echo $$ > escaped.pid; exec sleep 30' & "
                                      "while [ ! -s escaped.pid ]; do sleep 0.05; done; "
                                      "cat escaped.pid"));
    AgentFixture agent(job.path);
    agent.sendSpec(spec);
    const std::vector<Frame> frames = agent.untilFinished(20000);
    QVERIFY(!frames.empty() && frames.back().kind == FrameKind::Finished);
    QCOMPARE(agent.exitCode(), 0);
    const std::string printed = joined(frames, FrameKind::Stdout);
    const pid_t escaped = pid_t(std::atol(printed.c_str()));
    QVERIFY2(escaped > 0, printed.c_str());
    QVERIFY(nothingLeft({escaped}));
    QVERIFY(job.gone());
}

// SIGTERM to the agent (the host shutting down, a person's kill): the same cleanup as Cancel.
void TestAgent::signalToTheAgentStopsTheJob()
{
    JobFolder job;
    AgentSpec spec = job.spec();
    addSleepers(spec, 1);
    AgentFixture agent(job.path);
    agent.sendSpec(spec);
    const std::vector<pid_t> pids = waitUntilStarted(agent, 1);
    QCOMPARE(int(pids.size()), 1);
    QCOMPARE(::kill(pid_t(agent.pid()), SIGTERM), 0);
    const std::vector<Frame> frames = agent.untilFinished();
    QCOMPARE(agent.exitCode(), 1);
    QVERIFY(nothingLeft(pids));
    QVERIFY(job.gone());
    QVERIFY2(joined(frames, FrameKind::Message).find("signal 15") != std::string::npos,
             joined(frames, FrameKind::Message).c_str());
}

// No frame from the launcher for kSilenceLimitS (a connection that hangs without closing): the
// agent stops the job by itself.
void TestAgent::silentLauncherStopsTheJob()
{
    JobFolder job;
    AgentSpec spec = job.spec();
    addSleepers(spec, 1, 120);
    AgentFixture agent(job.path);
    agent.sendSpec(spec);
    QElapsedTimer clock;
    clock.start();
    const std::vector<pid_t> pids = waitUntilStarted(agent, 1);
    QCOMPARE(int(pids.size()), 1);
    const std::vector<Frame> frames = agent.untilFinished(int(kSilenceLimitS + 20) * 1000);
    const double silentS = double(clock.elapsed()) / 1000.0;
    QCOMPARE(agent.exitCode(), 1);
    QVERIFY2(silentS >= kSilenceLimitS - 1 && silentS < kSilenceLimitS + 10,
             qPrintable(QString::number(silentS)));
    QVERIFY(nothingLeft(pids));
    QVERIFY(job.gone());
    QVERIFY2(joined(frames, FrameKind::Message).find("no word from the launcher")
                 != std::string::npos,
             joined(frames, FrameKind::Message).c_str());
}

HETPLAN_TEST_APPLESS_MAIN(TestAgent)
#include "tst_agent.moc"
