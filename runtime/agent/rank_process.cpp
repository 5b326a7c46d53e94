// Starting and stopping one rank (rank_process.h; docs/launcher.md, "The host agent").
#include "runtime/agent/rank_process.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace hetplan::agent {

namespace {

// What a child reports through its exec pipe when it cannot run the rank: the step and errno.
struct ChildFailure
{
    int step = 0; // 0: exec, 1: the job folder, 2: /dev/null, 3: the agent was already gone
    int error = 0;
};

std::vector<std::string> environmentFor(const RankSpec &spec)
{
    std::map<std::string, std::string> merged;
    for (char **entry = environ; entry && *entry; ++entry) {
        const std::string_view text(*entry);
        const auto equals = text.find('=');
        if (equals != std::string_view::npos)
            merged[std::string(text.substr(0, equals))] = std::string(text.substr(equals + 1));
    }
    for (const auto &[name, value] : spec.env)
        merged[name] = value;
    std::vector<std::string> lines;
    lines.reserve(merged.size());
    for (const auto &[name, value] : merged) {
        std::string line = name;
        line += '=';
        line += value;
        lines.push_back(std::move(line));
    }
    return lines;
}

std::vector<char *> pointers(std::vector<std::string> &words)
{
    std::vector<char *> out;
    out.reserve(words.size() + 1);
    for (std::string &word : words)
        out.push_back(word.data());
    out.push_back(nullptr);
    return out;
}

[[noreturn]] void childFails(int reportFd, int step)
{
    const ChildFailure failure{step, errno};
    [[maybe_unused]] const ssize_t n = ::write(reportFd, &failure, sizeof failure);
    ::_exit(127);
}

// The child between fork and exec: only async-signal-safe calls, everything allocated before.
[[noreturn]] void runChild(pid_t agent, int outFd, int errFd, int reportFd, const char *jobDir,
                           char *const argv[], char *const envp[])
{
    const auto fail = [reportFd](int step) { childFails(reportFd, step); };
    sigset_t none;
    ::sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGPIPE, SIG_DFL);
    ::setsid();
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != agent)
        fail(3);
    if (::chdir(jobDir) != 0)
        fail(1);
    const int null = ::open("/dev/null", O_RDONLY);
    if (null < 0 || ::dup2(null, 0) < 0)
        fail(2);
    ::dup2(outFd, 1);
    ::dup2(errFd, 2);
    ::execvpe(argv[0], argv, envp);
    childFails(reportFd, 0);
}

std::string describeFailure(const RankSpec &spec, const std::string &jobDir, ChildFailure f)
{
    std::string text = "rank " + std::to_string(spec.rank) + ": ";
    switch (f.step) {
    case 1:
        text += "cannot enter the job folder ";
        text += jobDir;
        break;
    case 2:
        text += "cannot open /dev/null";
        break;
    case 3:
        return text + "the agent ended while the rank was starting";
    default:
        text += "cannot run ";
        text += spec.argv.front();
    }
    text += ": ";
    text += std::strerror(f.error);
    return text;
}

void closeAll(std::initializer_list<int> fds)
{
    for (int fd : fds)
        if (fd >= 0)
            ::close(fd);
}

} // namespace

Result<RankProcess> startRank(const RankSpec &spec, const std::string &jobDir)
{
    const std::string who = "rank " + std::to_string(spec.rank) + ": ";
    if (spec.argv.empty() || spec.argv.front().empty())
        return Error{ErrorKind::BadInput, who + "no command to run"};
    std::vector<std::string> args = spec.argv;
    std::vector<std::string> env = environmentFor(spec);
    const std::vector<char *> argv = pointers(args);
    const std::vector<char *> envp = pointers(env);

    int out[2] = {-1, -1};
    int err[2] = {-1, -1};
    int report[2] = {-1, -1};
    if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0
        || ::pipe2(report, O_CLOEXEC) != 0) {
        const int error = errno;
        closeAll({out[0], out[1], err[0], err[1], report[0], report[1]});
        return Error{ErrorKind::Internal, who + "cannot make pipes: " + std::strerror(error)};
    }
    const pid_t agent = ::getpid();
    const pid_t pid = ::fork();
    if (pid == 0)
        runChild(agent, out[1], err[1], report[1], jobDir.c_str(), argv.data(), envp.data());
    const int forkError = errno;
    closeAll({out[1], err[1], report[1]});
    if (pid < 0) {
        closeAll({out[0], err[0], report[0]});
        return Error{ErrorKind::Internal, who + "cannot fork: " + std::strerror(forkError)};
    }
    // The report pipe closes on exec; a child that could not exec writes why first.
    ChildFailure failure;
    ssize_t got = 0;
    do
        got = ::read(report[0], &failure, sizeof failure);
    while (got < 0 && errno == EINTR);
    ::close(report[0]);
    if (got == ssize_t(sizeof failure)) {
        closeAll({out[0], err[0]});
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        return Error{ErrorKind::BadInput, describeFailure(spec, jobDir, failure)};
    }
    for (int fd : {out[0], err[0]})
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    RankProcess process;
    process.rank = spec.rank;
    process.pid = pid;
    process.stdoutFd = out[0];
    process.stderrFd = err[0];
    return process;
}

std::string describeExit(int waitStatus)
{
    if (WIFSIGNALED(waitStatus))
        return "signal " + std::to_string(WTERMSIG(waitStatus));
    return "exit " + std::to_string(WEXITSTATUS(waitStatus));
}

bool signalGroup(const RankProcess &process, int signal)
{
    return process.pid > 0 && ::kill(-process.pid, signal) == 0;
}

std::vector<pid_t> ownChildren()
{
    const pid_t self = ::getpid();
    std::vector<pid_t> children;
    std::error_code ec;
    for (const auto &entry : std::filesystem::directory_iterator("/proc", ec)) {
        const std::string name = entry.path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos)
            continue;
        // /proc/PID/stat: "PID (COMMAND) STATE PPID ..."; the command may hold spaces and ')'.
        std::ifstream stat(entry.path() / "stat");
        std::string line;
        std::getline(stat, line);
        const auto close = line.rfind(')');
        if (close == std::string::npos)
            continue;
        char state = 0;
        long parent = 0;
        if (std::sscanf(line.c_str() + close + 1, " %c %ld", &state, &parent) == 2
            && parent == self)
            children.push_back(pid_t(std::stol(name)));
    }
    return children;
}

} // namespace hetplan::agent
