#pragma once

// One rank as its host's agent runs it (docs/launcher.md, "The host agent"): a child in its own
// process group, killed with the agent, its output on two pipes the agent reads.

#include "core/base/result.h"
#include "runtime/agent/agent_protocol.h"

#include <chrono>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace hetplan::agent {

struct RankProcess
{
    int rank = 0;
    pid_t pid = -1;    // also its process group; -1: nothing was started
    int stdoutFd = -1; // -1 once at end of file (or never opened)
    int stderrFd = -1;
    std::optional<int> waitStatus; // set once reaped
    std::chrono::steady_clock::time_point reapedAt;
    bool reported = false; // Exited was sent

    bool outputOpen() const { return stdoutFd >= 0 || stderrFd >= 0; }
    bool ended() const { return waitStatus.has_value() && !outputOpen(); }
};

// Starts `spec` in `jobDir`: fork; in the child its own session, SIGKILL when the agent dies,
// stdin from /dev/null, the agent's environment with spec.env added, argv[0] run without a
// shell. Returns the process, or why it could not run ("rank 3: cannot run /x: No such file or
// directory"); nothing of a rank that could not run is left to reap.
Result<RankProcess> startRank(const RankSpec &spec, const std::string &jobDir);

// "exit N" or "signal N", the payload of an Exited frame.
std::string describeExit(int waitStatus);

// Sends `signal` to the rank's process group; false when no process of the group is left.
bool signalGroup(const RankProcess &process, int signal);

// The processes whose parent is this one (from /proc): with the agent a child subreaper, every
// process of the job that is still alive, whatever group or session it moved to.
std::vector<pid_t> ownChildren();

} // namespace hetplan::agent
