#pragma once

#include <chrono>
#include <csignal>
#include <cstddef>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace hetplan::cli {

// The local processes of one run (`hetplan-cli run`, docs/runtime.md): one per rank, each in
// its own process group so that a terminal's Ctrl-C reaches only this supervisor, which then
// stops every rank itself. Output is streamed line by line with a "[rank R] " prefix.
class RankProcesses
{
public:
    struct Launch
    {
        std::string label;             // "rank 3 (B:0)", for messages
        std::vector<std::string> argv; // argv[0] is the executable's path
    };

    // How the run ended: every rank exited 0, or the first failure (or interruption).
    struct Outcome
    {
        bool ok = true;
        std::string message; // names the failed rank and how it died
    };

    explicit RankProcesses(std::chrono::milliseconds grace)
        : m_grace(grace)
    {}
    ~RankProcesses();
    RankProcesses(const RankProcesses &) = delete;
    RankProcesses &operator=(const RankProcesses &) = delete;

    // Starts every launch; on a failed fork/exec set-up the ones started are stopped.
    std::optional<std::string> start(const std::vector<Launch> &launches);
    // Streams output until every rank has exited. On the first rank that exits non-zero or by
    // a signal, or on SIGINT/SIGTERM/SIGHUP to this process, sends SIGTERM to every rank's
    // process group, SIGKILL after the grace period, and waits for all of them.
    Outcome wait();
    // Process ids in launch order (each is also its process group's id).
    std::vector<pid_t> pids() const;

private:
    struct Child
    {
        std::string label;
        pid_t pid = -1;
        int outFd = -1;
        int errFd = -1;
        std::string outLine;
        std::string errLine;
        bool running = false;
    };
    // SIGINT, SIGTERM and SIGHUP go to a self-pipe the output loop polls, from start() until
    // this object is destroyed; then the previous handlers are back.
    class StopSignals
    {
    public:
        StopSignals();
        ~StopSignals();
        StopSignals(const StopSignals &) = delete;
        StopSignals &operator=(const StopSignals &) = delete;

    private:
        static constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};
        struct sigaction m_previous[std::size(kStopSignals)] = {};
    };

    // A rank's unfinished line is kept up to this many bytes, then printed as it is.
    static constexpr std::size_t kMaxPendingBytes = std::size_t{64} * 1024;
    static void pump(Child &child, int &fd, std::string &line, bool toStderr);
    void stopAll(int signal);

    std::chrono::milliseconds m_grace;
    std::vector<Child> m_children;
    std::unique_ptr<StopSignals> m_signals;
};

} // namespace hetplan::cli
