// The shell commands of a job (launch_commands.h). They run under the remote user's shell, so
// every word that comes from a file or a person is quoted.
#include "runtime/launcher/launch_commands.h"

#include "runtime/launcher/ssh_session.h"

#include <cmath>

namespace hetplan::launch {

namespace {

// A POSIX-sh loop over the records of the job's process groups. The scripts run under `sh -c`
// whatever the remote user's login shell is, and signal a group as `kill -SIG -PGID`, the one
// spelling both dash and bash accept (dash refuses `--` there).
constexpr const char *kEachGroup = "for f in ./*.pgid; do [ -f \"$f\" ] || continue; "
                                   "g=$(cat \"$f\"); [ -n \"$g\" ] || continue; ";

std::string joined(const std::vector<std::string> &words)
{
    std::string text;
    for (const std::string &w : words)
        text += (text.empty() ? "" : " ") + shellQuote(w);
    return text;
}

} // namespace

std::string jobDirectory(const std::string &workdir, const std::string &jobId)
{
    std::string base = workdir.empty() ? std::string("hetplan-jobs") : workdir;
    // Quoted in every command, so "~/" would be a folder named "~": an SSH session (and SFTP)
    // starts in the remote home, so the same path relative to it is meant.
    if (base == "~" || base == "~/")
        base = ".";
    else if (base.starts_with("~/"))
        base.erase(0, 2);
    return (base.ends_with('/') ? base : base + "/") + jobId;
}

std::string groupCommand(const std::string &jobDir, const std::string &groupName,
                         const std::vector<std::string> &environment,
                         const std::vector<std::string> &argv)
{
    // In the new session, $$ is the process group's id; exec keeps it for the program.
    std::string script = "echo $$ > " + shellQuote(groupName + ".pgid") + " && exec";
    if (!environment.empty())
        script += " env " + joined(environment);
    script += " " + joined(argv);
    // In the background of a shell without job control, setsid is no group leader, so it
    // makes the new session itself instead of forking: $! is the group, and `wait` hands on
    // its exit status (128 + N when signal N ended it) and keeps the channel open until then.
    return "exec sh -c "
           + shellQuote("cd " + shellQuote(jobDir) + " || exit 1; setsid sh -c "
                        + shellQuote(script) + " & wait $!");
}

std::string redisCommand(const std::string &jobDir, const std::string &address, int port)
{
    return groupCommand(jobDir, "redis", {},
                        {"redis-server", "--bind", address, "--port", std::to_string(port),
                         "--protected-mode", "no", "--save", "", "--appendonly", "no"});
}

std::string stopCommand(const std::string &jobDir, int expectedGroups, double graceS)
{
    const int graceTenths = std::max(1, int(std::lround(graceS * 10)));
    std::string s = "cd " + shellQuote(jobDir) + " 2>/dev/null || { echo stopped 0; exit 0; }; ";
    s += "i=0; while [ $(ls ./*.pgid 2>/dev/null | wc -l) -lt " + std::to_string(expectedGroups)
         + " ] && [ $i -lt 10 ]; do sleep 0.1; i=$((i+1)); done; ";
    s += std::string(kEachGroup) + "kill -TERM -$g 2>/dev/null; done; ";
    s += "i=0; while [ $i -lt " + std::to_string(graceTenths) + " ]; do alive=0; " + kEachGroup
         + "kill -0 -$g 2>/dev/null && alive=$((alive+1)); done; "
         + "[ $alive -eq 0 ] && { echo stopped; exit 0; }; sleep 0.1; i=$((i+1)); done; ";
    s += "n=0; " + std::string(kEachGroup) + "kill -KILL -$g 2>/dev/null && n=$((n+1)); done; "
         + "echo killed $n";
    return "sh -c " + shellQuote(s);
}

std::string aliveCommand(const std::string &jobDir)
{
    return "sh -c "
           + shellQuote("cd " + shellQuote(jobDir) + " 2>/dev/null || exit 0; " + kEachGroup
                        + "kill -0 -$g 2>/dev/null && echo $g; done; exit 0");
}

std::string makeDirectoryCommand(const std::string &path)
{
    return "mkdir -p -- " + shellQuote(path);
}

std::string removeDirectoryCommand(const std::string &path)
{
    return "rm -rf -- " + shellQuote(path);
}

} // namespace hetplan::launch
