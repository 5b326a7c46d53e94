#pragma once

#include "core/base/result.h"
#include "runtime/launcher/launch_job.h"
#include "runtime/launcher/launch_plan.h"
#include "runtime/launcher/remote_command.h"
#include "runtime/launcher/ssh_session.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace hetplan::launch {

// What the threads of one job share: the stop request and the first reason for it.
class JobControl
{
public:
    // The first failure wins; later ones (ranks dying because of the stop) are not news.
    void fail(const std::string &why);
    void cancel();
    bool stopping() const { return m_stop.load(); }
    bool cancelled() const { return m_cancelled.load(); }
    std::string failure() const;
    // Hosts whose connection dropped while their ranks ran: they could not be stopped.
    void unreachable(const std::string &host);
    std::vector<std::string> unreachableHosts() const;
    // "; every rank on every host was stopped", or which hosts could not be reached.
    std::string stopSummary() const;

private:
    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_cancelled{false};
    mutable std::mutex m_mutex;
    std::string m_failure;
    std::vector<std::string> m_unreachable;
};

// Preflight, part one: connects (host key, authentication), checks the worker's version
// (`worker --version` must print ours) and, when the host must have GPUs, counts them. An
// unknown host key is also told to `sink` as an UnknownKey event.
Result<std::unique_ptr<SshSession>> checkHost(const HostWork &host, const LaunchSpec &spec,
                                              const LaunchSink &sink);

// Preflight, part two: the job folder and its files (each uploaded atomically).
Status uploadJobFiles(SshSession &session, const HostWork &host, const std::vector<JobFile> &files);

// A port for the job's rendezvous, 20000..59999 (the usual ephemeral range starts above).
int randomPort();

// Starts the job's Redis on rank 0's host at a random port and waits until it listens (a port
// another program holds is retried with another). Sets `*port`.
Result<std::unique_ptr<RemoteCommand>> startRendezvous(SshSession &session, const HostWork &host,
                                                       const std::string &address,
                                                       const JobControl &control, int *port);

// The running phase of one host, in its own thread: starts its ranks, streams their output
// to `sink`, and, once every rank of the job has ended or the job stops, stops what is left
// (TERM, then KILL after the grace period) by a command on a new channel. `runningRanks`
// counts the job's ranks still running on every host; `rendezvous`, on rank 0's host only,
// is the job's Redis, stopped with the rest.
struct HostRun
{
    SshSession &session;
    const JobLayout &layout;
    const HostWork &host;
    int port;
    double graceS;
    std::unique_ptr<RemoteCommand> rendezvous;
};
void runHost(HostRun run, JobControl &control, std::atomic<int> &runningRanks,
             const LaunchSink &sink);

// Fetches the host's rank measurements (text, in rank order of the host).
Result<std::vector<std::string>> fetchResults(SshSession &session, const HostWork &host);

// Removes the job folder; failures are only reported to `sink`, the job's outcome stands.
void removeJobFolder(SshSession &session, const HostWork &host, const LaunchSink &sink);

void emitMessage(const LaunchSink &sink, const std::string &host, const std::string &text);

} // namespace hetplan::launch
