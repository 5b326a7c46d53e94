#pragma once

#include "core/base/result.h"
#include "core/launch/probe_command.h"
#include "core/launch/worker_command.h"
#include "core/plan/plan.h"
#include "runtime/agent/agent_protocol.h"
#include "runtime/launcher/launch_job.h"
#include "runtime/launcher/ssh_session.h"

#include <optional>
#include <string>
#include <vector>

namespace hetplan::runtime {
struct Job;
}

namespace hetplan::launch {

// A file every host of the job receives in its job folder.
struct JobFile
{
    std::string name; // inside the job folder
    std::string content;
};

// One rank as the layout knows it; its process is made by rankProcess() once its host's job
// folder is known.
struct RankStart
{
    int rank = 0;
    std::vector<std::string> environment; // "NAME=value"
    // What the rank runs: hetplan-worker (the hosts file's "worker") or hetplan-probe beside it,
    // `executable`, whose rendezvous is the host agent's store socket; or else the person's
    // own `command`.
    std::optional<WorkerCommand> worker;
    std::optional<ProbeCommand> probe;
    std::string executable;
    std::vector<std::string> command;
    std::string resultFile; // its measurement (or probe file), in the job folder; empty: none
    // A serving replica's scheduler: the replica whose request records are its result file.
    int schedulerOf = -1;
};

// What one SSH destination does in the job. Several machines of the cluster may map to it.
struct HostWork
{
    std::string destination; // "user@host:port"
    SshTarget target;
    // Runs the host's agent; preflight checks it once for every machine here: rows sharing
    // a destination agree on it (checkHostRows).
    std::string worker;
    std::string jobDir;
    std::vector<RankStart> ranks;
    int gpusNeeded = 0; // 0: no GPU check (the CPU backend, or the person's own command)
};

// A launch spec resolved against its plan: which host runs which rank, how, and the files
// they read. Nothing is contacted yet.
struct JobLayout
{
    std::string jobId;
    int world = 0;
    std::vector<HostWork> hosts; // rank 0's host first
    std::vector<JobFile> files;
    std::string rendezvousAddress; // rank 0's host as the hosts file names it (MASTER_ADDR)
    bool measured = true;          // hetplan-worker ranks write measurements
    bool serving = false;          // a serving plan: the schedulers write request records
    // Whether the agents serve the rendezvous store (hetplan-worker and hetplan-probe meet
    // through it). A person's own command gets MASTER_ADDR/MASTER_PORT for its own rendezvous
    // instead.
    bool serveStore = true;
};

// Reads and checks the plan as every rank will (the whole job's compiled program), maps each
// rank's machine to its hosts-file entry and lays out every rank's command. Errors name
// the machine without a host entry, the plan's problem or the bad option.
Result<JobLayout> layoutJob(const LaunchSpec &spec, const std::string &jobId);

// The job of `spec` as layoutJob reads and checks it: every rank's program, compiled.
Result<runtime::Job> loadLaunchJob(const LaunchSpec &spec);

// `LaunchJob::probe`: one hetplan-probe rank per distinct host of spec.hosts, in file order,
// each measuring as `measure` says; rank 0 writes probe.json. A model that names a local file
// is uploaded with the job.
Result<JobLayout> layoutProbe(const LaunchSpec &spec, const ProbeCommand &measure,
                              const std::string &jobId);

// The process of `rank` as its host's agent starts it (argv without a shell, environment),
// in the job folder `jobDir` (absolute) on its host; `masterPort` is the person's own command's
// MASTER_PORT.
agent::RankSpec rankProcess(const RankStart &rank, const std::string &jobDir, int masterPort);

// A port for a person's own command's rendezvous, 20000..59999 (the usual ephemeral range
// starts above).
int randomPort();

// A fresh job id: "hp-YYYYMMDD-HHMMSS-XXXXXX" (UTC, random hex).
std::string newJobId();

} // namespace hetplan::launch
