#include "app/cli/rank_processes.h"

#include "app/cli/signals.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>

namespace hetplan::cli {
namespace {

// Signals arrive on a self-pipe so that the poll loop sees them.
int g_signalPipe[2] = {-1, -1};

extern "C" void onStopSignal(int signal)
{
    const unsigned char byte = static_cast<unsigned char>(signal);
    const ssize_t ignored = ::write(g_signalPipe[1], &byte, 1);
    (void)ignored;
}

std::string describeExit(int status)
{
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        const char *name = sigabbrev_np(sig);
        return "was killed by signal " + std::to_string(sig)
               + (name ? std::string(" (SIG") + name + ")" : std::string());
    }
    return "exited with status " + std::to_string(WEXITSTATUS(status));
}

constexpr std::chrono::milliseconds kCauseWindow{300};

bool failed(int status)
{
    return WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0);
}

} // namespace

RankProcesses::StopSignals::StopSignals()
{
    if (::pipe2(g_signalPipe, O_CLOEXEC | O_NONBLOCK) != 0)
        g_signalPipe[0] = g_signalPipe[1] = -1;
    struct sigaction action = {};
    action.sa_handler = onStopSignal;
    sigemptyset(&action.sa_mask);
    for (std::size_t i = 0; i < std::size(kStopSignals); ++i)
        sigaction(kStopSignals[i], &action, &m_previous[i]);
}

RankProcesses::StopSignals::~StopSignals()
{
    for (std::size_t i = 0; i < std::size(kStopSignals); ++i)
        sigaction(kStopSignals[i], &m_previous[i], nullptr);
    for (int &fd : g_signalPipe)
        if (fd >= 0)
            ::close(std::exchange(fd, -1));
}

RankProcesses::~RankProcesses()
{
    // Never leave a rank behind, whatever path led here.
    stopAll(SIGKILL);
    for (Child &c : m_children) {
        if (c.running)
            ::waitpid(c.pid, nullptr, 0);
        for (int fd : {c.outFd, c.errFd})
            if (fd >= 0)
                ::close(fd);
    }
}

std::optional<std::string> RankProcesses::start(const std::vector<Launch> &launches)
{
    // From the first fork on, a stop request must reach the ranks, not only this process.
    if (!m_signals)
        m_signals = std::make_unique<StopSignals>();
    for (const Launch &launch : launches) {
        int out[2];
        int err[2];
        if (::pipe2(out, O_CLOEXEC) != 0)
            return "cannot create a pipe: " + std::string(std::strerror(errno));
        if (::pipe2(err, O_CLOEXEC) != 0) {
            ::close(out[0]);
            ::close(out[1]);
            return "cannot create a pipe: " + std::string(std::strerror(errno));
        }
        std::vector<char *> argv;
        for (const std::string &a : launch.argv)
            argv.push_back(const_cast<char *>(a.c_str()));
        argv.push_back(nullptr);
        const pid_t pid = ::fork();
        if (pid == 0) {
            // hetplan-cli blocks SIGINT and SIGTERM in every thread (signals.h); a rank must
            // not inherit that mask, or the TERM it is stopped with would stay pending.
            sigset_t none;
            sigemptyset(&none);
            ::sigprocmask(SIG_SETMASK, &none, nullptr);
            ::setpgid(0, 0);
            ::dup2(out[1], STDOUT_FILENO);
            ::dup2(err[1], STDERR_FILENO);
            ::execv(argv[0], argv.data());
            const std::string why
                = "cannot start " + launch.argv[0] + ": " + std::strerror(errno) + "\n";
            const ssize_t ignored = ::write(STDERR_FILENO, why.data(), why.size());
            (void)ignored;
            ::_exit(127);
        }
        ::close(out[1]);
        ::close(err[1]);
        if (pid < 0) {
            ::close(out[0]);
            ::close(err[0]);
            return "cannot start " + launch.label + ": " + std::strerror(errno);
        }
        ::setpgid(pid, pid); // also here: whichever of parent and child runs first
        m_children.push_back({launch.label, pid, out[0], err[0], {}, {}, true});
    }
    return std::nullopt;
}

void RankProcesses::pump(Child &child, int &fd, std::string &line, bool toStderr)
{
    char buffer[4096];
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    std::ostream &sink = toStderr ? std::cerr : std::cout;
    if (n <= 0) {
        if (n < 0 && errno == EINTR)
            return;
        if (!line.empty())
            sink << '[' << child.label << "] " << line << std::endl;
        line.clear();
        ::close(fd);
        fd = -1;
        return;
    }
    line.append(buffer, std::size_t(n));
    std::size_t eol;
    while ((eol = line.find('\n')) != std::string::npos) {
        sink << '[' << child.label << "] " << line.substr(0, eol) << '\n';
        line.erase(0, eol + 1);
    }
    // Output without newlines is printed in pieces of at most kMaxPendingBytes, so a rank
    // cannot grow the launcher without bound.
    if (line.size() >= kMaxPendingBytes) {
        sink << '[' << child.label << "] " << line << '\n';
        line.clear();
    }
    sink.flush();
}

std::vector<pid_t> RankProcesses::pids() const
{
    std::vector<pid_t> list;
    for (const Child &c : m_children)
        list.push_back(c.pid);
    return list;
}

void RankProcesses::stopAll(int signal)
{
    for (const Child &c : m_children)
        if (c.running && ::kill(-c.pid, signal) != 0)
            ::kill(c.pid, signal); // not yet its own group leader
}

RankProcesses::Outcome RankProcesses::wait()
{
    using Clock = std::chrono::steady_clock;
    Outcome outcome;
    // When the ranks that ignored SIGTERM get SIGKILL; max() = not stopping.
    Clock::time_point killAt = Clock::time_point::max();
    const auto stopping = [&](std::string message) {
        if (!outcome.ok)
            return;
        outcome = {false, std::move(message)};
        stopAll(SIGTERM);
        stopAll(SIGCONT); // a stopped rank acts on SIGTERM only once it runs again
        killAt = Clock::now() + m_grace;
    };
    const auto alive = [&] {
        return std::any_of(m_children.begin(), m_children.end(), [](const Child &c) {
            return c.running || c.outFd >= 0 || c.errFd >= 0;
        });
    };
    std::optional<std::string> pendingExit;
    Clock::time_point decideAt;
    while (alive()) {
        std::vector<pollfd> fds;
        std::vector<std::pair<Child *, bool>> owners;
        for (Child &c : m_children)
            for (auto [fd, isErr] : {std::pair{c.outFd, false}, std::pair{c.errFd, true}})
                if (fd >= 0) {
                    fds.push_back({fd, POLLIN, 0});
                    owners.emplace_back(&c, isErr);
                }
        if (g_signalPipe[0] >= 0)
            fds.push_back({g_signalPipe[0], POLLIN, 0});
        ::poll(fds.data(), fds.size(), 50);
        for (std::size_t i = 0; i < owners.size(); ++i)
            if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
                auto [child, isErr] = owners[i];
                pump(*child, isErr ? child->errFd : child->outFd,
                     isErr ? child->errLine : child->outLine, isErr);
            }
        if (g_signalPipe[0] >= 0 && (fds.back().revents & POLLIN)) {
            unsigned char sig = 0;
            while (::read(g_signalPipe[0], &sig, 1) == 1) {
            }
            stopping("interrupted by signal " + std::to_string(sig) + ": stopping every rank");
        }
        // SIGINT and SIGTERM reach hetplan-cli's signal thread (signals.h), which turns them
        // into a stop request; SIGHUP comes through the pipe above.
        if (cli::stopToken().stop_requested())
            stopping("interrupted by " + std::string(cli::receivedSignalName())
                     + ": stopping every rank");
        // A rank killed by a signal is the cause; ranks exiting with an error in the same
        // pass usually report that they lost it.
        std::optional<std::string> killed;
        std::optional<std::string> exited;
        for (Child &c : m_children) {
            int status = 0;
            if (!c.running || ::waitpid(c.pid, &status, WNOHANG) != c.pid)
                continue;
            c.running = false;
            if (!failed(status))
                continue;
            std::string text = c.label + " " + describeExit(status);
            if (WIFSIGNALED(status) && !killed)
                killed = std::move(text);
            else if (!exited)
                exited = std::move(text);
        }
        // A rank that exits with an error may only have lost a peer that is still dying:
        // give a death by signal a moment to show before naming the cause.
        if (exited && !pendingExit) {
            pendingExit = std::move(exited);
            decideAt = Clock::now() + kCauseWindow;
        }
        if (killed)
            stopping(*killed + "; stopping every rank");
        else if (pendingExit && Clock::now() >= decideAt)
            stopping(*pendingExit + "; stopping every rank");
        if (Clock::now() >= killAt) {
            stopAll(SIGKILL);
            killAt = Clock::time_point::max();
        }
    }
    // Every rank may be gone before the cause window closed (all refused at once): the
    // failure still stands.
    if (outcome.ok && pendingExit)
        outcome = {false, *pendingExit};
    return outcome;
}

} // namespace hetplan::cli
