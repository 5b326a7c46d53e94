#pragma once

#include "core/base/result.h"
#include "runtime/launcher/launch_job.h"
#include "runtime/launcher/launch_plan.h"
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
    // A failure that explains those told before it (a rank killed from outside, whose peers
    // failed a moment earlier because it was gone): it replaces them, unless a person cancelled.
    void failFirst(const std::string &why);
    void cancel();
    bool stopping() const { return m_stop.load(); }
    bool cancelled() const { return m_cancelled.load(); }
    std::string failure() const;
    // Hosts whose connection dropped while their ranks ran: their agents stop them alone.
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

// Preflight, part two: the job folder (mode 0700, a fresh one) and its files, each uploaded
// atomically. Returns the folder's absolute path on the host.
Result<std::string> uploadJobFiles(SshSession &session, const HostWork &host,
                                   const std::vector<JobFile> &files);

// Whether the connection still stands: a failure on a dropped one is the host's, not a rank's.
bool connected(SshSession &session);

// Removes the job folder, first killing what still runs in it (an agent that did not finish);
// failures are only reported to `sink`, the job's outcome stands.
void removeJobFolder(SshSession &session, const HostWork &host, const std::string &jobDir,
                     const LaunchSink &sink);

void emitMessage(const LaunchSink &sink, const std::string &host, const std::string &text);

} // namespace hetplan::launch
