// The shell commands of a job (launch_commands.h). They run under the remote user's shell, so
// every word that comes from a file or a person is quoted.
#include "runtime/launcher/launch_commands.h"

#include "runtime/launcher/ssh_session.h"

namespace hetplan::launch {

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

std::string makeJobFolderCommand(const std::string &jobDir)
{
    const std::string quoted = shellQuote(jobDir);
    std::string s = "mkdir -p -- \"$(dirname -- " + quoted + ")\" && mkdir -m 0700 -- " + quoted;
    s += " && cd -- " + quoted + " && pwd -P";
    // Under sh whatever the remote user's login shell is.
    return "sh -c " + shellQuote(s);
}

std::string agentCommand(const std::string &jobDir, const std::string &worker)
{
    std::string s = "cd -- " + shellQuote(jobDir) + " && exec ";
    s += shellQuote(worker);
    s += " agent";
    return s;
}

std::string stopJobCommand(const std::string &jobDir)
{
    // KILL also ends a stopped process; a process of another user is left to its owner.
    std::string s = "d=" + shellQuote(jobDir) + "; for p in /proc/[0-9]*; do ";
    s += "[ \"$(readlink \"$p/cwd\" 2>/dev/null)\" = \"$d\" ] && kill -KILL \"${p#/proc/}\" ";
    s += "2>/dev/null; done; rm -rf -- \"$d\"";
    return "sh -c " + shellQuote(s);
}

} // namespace hetplan::launch
