// The host agent's one poll() loop (agent_run.h; docs/launcher.md, "The host agent"): frames
// from the launcher, the ranks' pipes, the store socket, the ranks' ends and a timer, on one
// thread.
#include "runtime/agent/agent_run.h"

#include "base/version.h"
#include "runtime/agent/agent_protocol.h"
#include "runtime/agent/outgoing_bytes.h"
#include "runtime/agent/rank_process.h"
#include "runtime/agent/store_server.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <poll.h>
#include <span>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace hetplan::agent {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using Seconds = std::chrono::duration<double>;

// Frames queued for the launcher beyond this stop the reading of the ranks' output and store
// requests until the channel drains: the ranks then block on their own writes.
constexpr std::size_t kMaxQueuedBytes = std::size_t(4) << 20;
// A rank's pipes still open this long after it was reaped are held by a process that left its
// group: they are closed (and that process is killed before the agent finishes).
constexpr Seconds kKillDrainS{2};
// How long the last frames may take to reach the launcher before the agent exits anyway.
constexpr Seconds kFinalFlushS{10};
constexpr Seconds kMaxGraceS{3600};

enum class Phase { AwaitSpec, Running, Stopping };

class Agent
{
public:
    Agent(int inFd, int outFd, int signalFd)
        : m_in(inFd)
        , m_out(outFd)
        , m_signals(signalFd)
    {}
    int run();

private:
    void send(FrameKind kind, int rank, std::string payload);
    void message(const std::string &line);
    void beginStop(int exitCode, const std::string &why);
    void readLauncher();
    void onFrame(const Frame &frame);
    void startJob(const std::string &payload);
    void readOutput(RankProcess &process, int &fd, FrameKind kind);
    void readSignals();
    void reap();
    void reportEnded();
    void sendResult(const RankProcess &process, const std::string &file);
    void escalate(Clock::time_point now);
    void closeHeldPipes(Clock::time_point now);
    bool allEnded() const;
    void endStragglers();
    int finish();

    int m_in;
    int m_out;
    int m_signals;
    bool m_inOpen = true;
    bool m_outOpen = true;
    FrameReader m_reader;
    OutgoingBytes m_queue;
    Phase m_phase = Phase::AwaitSpec;
    int m_exitCode = 0;
    std::string m_jobDir; // its real path, once the Spec was accepted
    Seconds m_grace{3};
    std::vector<RankProcess> m_ranks;
    std::vector<std::string> m_resultFiles; // per entry of m_ranks
    std::unique_ptr<StoreServer> m_store;
    Clock::time_point m_lastHeard = Clock::now();
    Clock::time_point m_lastBeat = Clock::now();
    Clock::time_point m_termAt;
    bool m_killSent = false;
    int m_killed = 0;
};

void Agent::send(FrameKind kind, int rank, std::string payload)
{
    if (!m_outOpen)
        return;
    m_queue.push(encodeFrame({kind, rank, std::move(payload)}));
    if (!m_queue.writeSome(m_out)) {
        m_outOpen = false;
        beginStop(1, "the launcher's channel is gone (writing failed)");
    }
}

void Agent::message(const std::string &line)
{
    std::cerr << "hetplan-worker agent: " << line << std::endl;
    send(FrameKind::Message, -1, line);
}

// TERM to every rank's group now, KILL after the grace period (escalate()).
void Agent::beginStop(int exitCode, const std::string &why)
{
    if (m_phase == Phase::Stopping)
        return;
    m_phase = Phase::Stopping;
    m_exitCode = exitCode;
    m_termAt = Clock::now();
    if (!why.empty())
        message(why);
    for (const RankProcess &process : m_ranks)
        if (!process.waitStatus)
            signalGroup(process, SIGTERM);
}

void Agent::readLauncher()
{
    char buffer[64 * 1024];
    const ssize_t got = ::read(m_in, buffer, sizeof buffer);
    if (got < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (got <= 0) {
        m_inOpen = false;
        beginStop(1, "the launcher's channel closed");
        return;
    }
    m_reader.feed(std::string_view(buffer, std::size_t(got)));
    while (m_inOpen) {
        auto frame = m_reader.next();
        if (!frame) {
            m_inOpen = false;
            beginStop(1, frame.error().message);
            return;
        }
        if (!*frame)
            return;
        m_lastHeard = Clock::now();
        onFrame(**frame);
    }
}

void Agent::onFrame(const Frame &frame)
{
    switch (frame.kind) {
    case FrameKind::Heartbeat:
        return;
    case FrameKind::Cancel:
        beginStop(0, {});
        return;
    case FrameKind::Spec:
        if (m_phase == Phase::AwaitSpec)
            startJob(frame.payload);
        else
            beginStop(1, "a second job spec from the launcher");
        return;
    case FrameKind::StoreReply:
        if (auto reply = decodeStoreReply(frame.payload); !reply)
            beginStop(1, reply.error().message);
        else if (m_store)
            m_store->deliver(*reply);
        return;
    default:
        m_inOpen = false;
        beginStop(1, "a frame of kind " + std::to_string(int(frame.kind))
                         + " that only an agent sends came from the launcher");
    }
}

void Agent::startJob(const std::string &payload)
{
    auto spec = decodeSpec(payload);
    if (!spec) {
        beginStop(1, spec.error().message);
        return;
    }
    // The folder the agent removes at the end must be the one the launcher started it in.
    std::error_code ec;
    const fs::path here = fs::canonical(fs::current_path(ec), ec);
    const fs::path given = ec ? fs::path() : fs::canonical(spec->jobDir, ec);
    if (ec || given != here || here == here.root_path()) {
        beginStop(2, "refused the job: its folder " + spec->jobDir
                         + " is not the agent's working folder " + here.string()
                         + " (the agent removes its job folder at the end)");
        return;
    }
    m_jobDir = here.string();
    m_grace = std::clamp(Seconds(spec->graceS), Seconds(0), kMaxGraceS);
    m_phase = Phase::Running;
    if (spec->serveStore) {
        auto store = StoreServer::listen(m_jobDir, [this](const StoreRequest &request) {
            send(FrameKind::StoreRequest, -1, encodeStoreRequest(request));
        });
        if (!store) {
            beginStop(1, store.error().message);
            return;
        }
        m_store = std::move(store).value();
    }
    for (const RankSpec &rank : spec->ranks) {
        if (m_phase == Phase::Stopping) // the channel failed meanwhile: start no more
            break;
        auto started = startRank(rank, m_jobDir);
        if (started) {
            send(FrameKind::Started, rank.rank, std::to_string(started->pid));
            m_ranks.push_back(*started);
        } else {
            message(started.error().message);
            RankProcess never;
            never.rank = rank.rank;
            never.waitStatus = W_EXITCODE(127, 0);
            m_ranks.push_back(never);
        }
        m_resultFiles.push_back(rank.resultFile);
    }
}

void Agent::readOutput(RankProcess &process, int &fd, FrameKind kind)
{
    std::string piece(kMaxOutputPieceBytes, '\0');
    const ssize_t got = ::read(fd, piece.data(), piece.size());
    if (got < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (got <= 0) {
        ::close(fd);
        fd = -1;
        return;
    }
    piece.resize(std::size_t(got));
    send(kind, process.rank, std::move(piece));
}

void Agent::readSignals()
{
    signalfd_siginfo info{};
    while (::read(m_signals, &info, sizeof info) == ssize_t(sizeof info)) {
        const int signal = int(info.ssi_signo);
        if (signal != SIGCHLD)
            beginStop(1, "the agent got signal " + std::to_string(signal));
    }
}

// Reaps every child that ended: ranks, and (the agent being a subreaper) what they left
// behind. A rank's group is killed while its leader is still a zombie (so the group's id cannot
// be reused yet): what a rank leaves behind ends with it.
void Agent::reap()
{
    for (;;) {
        siginfo_t info{};
        if (::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0)
            return;
        const pid_t pid = info.si_pid;
        const bool rank = std::any_of(m_ranks.begin(), m_ranks.end(),
                                      [pid](const RankProcess &p) { return p.pid == pid; });
        if (rank)
            ::kill(-pid, SIGKILL);
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        for (RankProcess &process : m_ranks)
            if (process.pid == pid) {
                process.waitStatus = status;
                process.reapedAt = Clock::now();
            }
    }
}

void Agent::reportEnded()
{
    for (std::size_t i = 0; i < m_ranks.size(); ++i) {
        RankProcess &process = m_ranks[i];
        if (process.reported || !process.ended())
            continue;
        process.reported = true;
        send(FrameKind::Exited, process.rank, describeExit(*process.waitStatus));
        if (m_resultFiles[i].empty())
            continue;
        // A rank that failed may still have written its file (a serving scheduler records
        // what it had not finished as failed): the launcher decides what it is worth.
        std::error_code ec;
        const bool exited0
            = WIFEXITED(*process.waitStatus) && WEXITSTATUS(*process.waitStatus) == 0;
        if (exited0 || fs::is_regular_file(fs::path(m_jobDir) / m_resultFiles[i], ec))
            sendResult(process, m_resultFiles[i]);
    }
}

void Agent::sendResult(const RankProcess &process, const std::string &file)
{
    const std::string who = "rank " + std::to_string(process.rank) + ": ";
    const fs::path path = fs::path(m_jobDir) / file;
    std::error_code ec;
    const auto bytes = fs::file_size(path, ec);
    if (ec) {
        message(who + "exited 0 but its result " + path.string()
                + " cannot be read: " + ec.message());
        return;
    }
    if (bytes > kMaxFramePayloadBytes) {
        message(who + "its result " + path.string() + " has " + std::to_string(bytes)
                + " bytes, more than a frame carries (" + std::to_string(kMaxFramePayloadBytes)
                + ")");
        return;
    }
    std::ifstream in(path, std::ios::binary);
    std::string text(static_cast<std::size_t>(bytes), '\0');
    if (!in.read(text.data(), std::streamsize(text.size()))) {
        message(who + "cannot read its result " + path.string());
        return;
    }
    send(FrameKind::Result, process.rank, std::move(text));
}

void Agent::escalate(Clock::time_point now)
{
    if (m_killSent || now - m_termAt < m_grace)
        return;
    for (const RankProcess &process : m_ranks)
        if (!process.waitStatus && signalGroup(process, SIGKILL))
            ++m_killed;
    m_killSent = true;
}

// A pipe is closed once nothing waits in it (its output is all sent), or regardless once the
// job is being killed.
void Agent::closeHeldPipes(Clock::time_point now)
{
    for (RankProcess &process : m_ranks) {
        if (!process.waitStatus || now - process.reapedAt < kKillDrainS)
            continue;
        for (int *fd : {&process.stdoutFd, &process.stderrFd}) {
            int waiting = 0;
            if (*fd >= 0
                && (m_killSent || (::ioctl(*fd, FIONREAD, &waiting) == 0 && waiting == 0))) {
                ::close(*fd);
                *fd = -1;
            }
        }
    }
}

bool Agent::allEnded() const
{
    return std::all_of(m_ranks.begin(), m_ranks.end(),
                       [](const RankProcess &p) { return p.reported; });
}

// Processes of the job that outlived their rank's group (they moved to a session of their own)
// came back to the agent as its children: they are killed and reaped before the agent ends.
void Agent::endStragglers()
{
    const auto deadline = Clock::now() + kKillDrainS;
    std::vector<pid_t> left = ownChildren();
    while (!left.empty() && Clock::now() < deadline) {
        for (pid_t pid : left)
            ::kill(pid, SIGKILL);
        ::poll(nullptr, 0, 20);
        reap();
        left = ownChildren();
    }
    if (!left.empty())
        message(std::to_string(left.size()) + " process(es) of the job did not end after KILL");
}

// Every rank ended: the store socket and the job folder go, the launcher hears Finished.
int Agent::finish()
{
    endStragglers();
    if (m_killed > 0)
        message(std::to_string(m_killed) + " rank(s) killed after TERM");
    m_store.reset();
    if (!m_jobDir.empty()) {
        std::error_code ec;
        fs::remove_all(m_jobDir, ec);
        if (ec)
            message("cannot remove the job folder " + m_jobDir + ": " + ec.message());
        send(FrameKind::Finished, -1, {});
    }
    const auto deadline = Clock::now() + kFinalFlushS;
    while (m_outOpen && !m_queue.empty() && Clock::now() < deadline) {
        pollfd out{m_out, POLLOUT, 0};
        ::poll(&out, 1, 100);
        m_outOpen = m_queue.writeSome(m_out);
    }
    return m_exitCode;
}

int Agent::run()
{
    send(FrameKind::Ready, -1, "hetplan-worker " + std::string(kVersion));
    const auto heartbeat = Seconds(kHeartbeatIntervalS);
    const auto silence = Seconds(kSilenceLimitS);
    for (;;) {
        const auto now = Clock::now();
        if (m_phase != Phase::Stopping && now - m_lastHeard > silence)
            beginStop(1, "no word from the launcher for " + std::to_string(int(kSilenceLimitS))
                             + " s");
        if (now - m_lastBeat >= heartbeat) {
            m_lastBeat = now;
            send(FrameKind::Heartbeat, -1, {});
        }
        if (m_phase == Phase::Stopping)
            escalate(now);
        reap();
        closeHeldPipes(now);
        reportEnded();
        if (m_phase != Phase::AwaitSpec && allEnded())
            return finish();

        std::vector<pollfd> fds{{m_signals, POLLIN, 0}};
        fds.push_back({m_inOpen ? m_in : -1, POLLIN, 0});
        fds.push_back({m_outOpen && !m_queue.empty() ? m_out : -1, POLLOUT, 0});
        const bool reading = m_queue.queuedBytes() < kMaxQueuedBytes;
        const std::size_t firstRank = fds.size();
        for (const RankProcess &process : m_ranks)
            for (int fd : {process.stdoutFd, process.stderrFd})
                fds.push_back({reading ? fd : -1, POLLIN, 0});
        const std::size_t firstStore = fds.size();
        if (m_store)
            m_store->addPollFds(fds, reading);
        if (::poll(fds.data(), fds.size(), 200) < 0 && errno != EINTR) {
            beginStop(1, std::string("poll failed: ") + std::strerror(errno));
            continue;
        }
        if (fds[0].revents)
            readSignals();
        if (fds[2].revents && !m_queue.writeSome(m_out)) {
            m_outOpen = false;
            beginStop(1, "the launcher's channel is gone (writing failed)");
        }
        if (fds[1].revents)
            readLauncher();
        for (std::size_t i = 0; i < m_ranks.size(); ++i) {
            RankProcess &process = m_ranks[i];
            if (fds[firstRank + 2 * i].revents && process.stdoutFd >= 0)
                readOutput(process, process.stdoutFd, FrameKind::Stdout);
            if (fds[firstRank + 2 * i + 1].revents && process.stderrFd >= 0)
                readOutput(process, process.stderrFd, FrameKind::Stderr);
        }
        if (m_store)
            m_store->onPoll(std::span<const pollfd>(fds).subspan(firstStore));
    }
}

} // namespace

int runAgent(int inFd, int outFd)
{
    std::signal(SIGPIPE, SIG_IGN);
    // Whatever a rank starts and leaves comes back to the agent, which then reaps or kills it.
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    sigset_t handled;
    ::sigemptyset(&handled);
    for (int signal : {SIGCHLD, SIGTERM, SIGHUP, SIGINT})
        ::sigaddset(&handled, signal);
    ::sigprocmask(SIG_BLOCK, &handled, nullptr);
    const int signalFd = ::signalfd(-1, &handled, SFD_NONBLOCK | SFD_CLOEXEC);
    if (signalFd < 0) {
        std::cerr << "hetplan-worker agent: cannot watch signals: " << std::strerror(errno) << '\n';
        return 1;
    }
    ::fcntl(outFd, F_SETFL, ::fcntl(outFd, F_GETFL) | O_NONBLOCK);
    Agent agent(inFd, outFd, signalFd);
    const int code = agent.run();
    ::close(signalFd);
    return code;
}

} // namespace hetplan::agent
