#pragma once

// The running phase of a job (docs/launcher.md, "The host agent"): one agent per host, started
// on one exec channel of the host's session, driven in frames by one loop on the caller's
// thread for every host at once: no thread per host, and at most one channel per host.

#include "core/base/result.h"
#include "runtime/launcher/launch_host.h"

#include <map>
#include <string>
#include <vector>

namespace hetplan::launch {

// A host ready to run: its session (used only by the caller's thread from now on), its share
// of the job, and its job folder's absolute path there.
struct AgentHost
{
    SshSession *session = nullptr;
    const HostWork *host = nullptr;
    std::string jobDir;
};

// Rank → the text of its result file, as its agent sent it.
using RankResults = std::map<int, std::string>;

// Starts every host's agent, sends it its ranks, streams their output to `sink`, serves the
// job's rendezvous store (the launcher holds the keys) and returns once every agent finished.
// The first rank that fails, a host whose agent is lost, or a stop request (`control`) sends
// Cancel to every agent and waits for them (the grace period and the connect timeout at most);
// the Error then names the first reason. `finished[i]` tells, also on failure, whether host
// i's agent said Finished (it stopped its ranks and removed the job folder). `stopped`, when
// given, receives on failure the result files the agents sent back all the same (a serving
// scheduler's records of a stopped replica).
Result<RankResults> runAgents(const std::vector<AgentHost> &hosts, const JobLayout &layout,
                              const LaunchSpec &spec, JobControl &control, const LaunchSink &sink,
                              std::vector<bool> *finished, RankResults *stopped = nullptr);

} // namespace hetplan::launch
