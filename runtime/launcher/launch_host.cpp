// One host's share of a launch job before and after its agent runs (launch_host.h): preflight,
// the job folder and its files. A pool thread holds the host's SshSession meanwhile (libssh:
// one thread per session at a time).
#include "runtime/launcher/launch_host.h"

#include "base/version.h"
#include "runtime/launcher/launch_commands.h"
#include "runtime/launcher/remote_command.h"

#include <algorithm>
#include <libssh/libssh.h>
#include <sstream>

namespace hetplan::launch {

namespace {

std::string trimmed(const std::string &text)
{
    const auto begin = text.find_first_not_of(" \t\r\n");
    const auto end = text.find_last_not_of(" \t\r\n");
    return begin == std::string::npos ? std::string() : text.substr(begin, end - begin + 1);
}

Status checkWorkerVersion(SshSession &session, const HostWork &host)
{
    const std::string command = shellQuote(host.worker) + " --version";
    auto out = runCommand(session, command, session.target().timeoutS);
    if (!out)
        return out.error();
    const std::string expected = "hetplan-worker " + std::string(kVersion);
    if (out->exitStatus != 0)
        return badInput(host.destination + ": `" + host.worker + " --version` failed (exit status "
                        + std::to_string(out->exitStatus) + "): " + trimmed(out->stderrText)
                        + "; install HetPlan " + std::string(kVersion)
                        + " on the host and name its hetplan-worker as \"worker\" in the hosts "
                          "file");
    if (trimmed(out->stdoutText) != expected)
        return badInput(host.destination + ": " + host.worker + " is '" + trimmed(out->stdoutText)
                        + "', this launcher needs '" + expected
                        + "': install the same HetPlan version on every host");
    return okStatus();
}

Status checkGpus(SshSession &session, const HostWork &host)
{
    auto out = runCommand(session, "nvidia-smi -L", session.target().timeoutS);
    if (!out)
        return out.error();
    int gpus = 0;
    std::istringstream lines(out->stdoutText);
    for (std::string line; std::getline(lines, line);)
        gpus += line.starts_with("GPU ") ? 1 : 0;
    if (out->exitStatus != 0 || gpus < host.gpusNeeded)
        return badInput(host.destination + ": the plan puts " + std::to_string(host.gpusNeeded)
                        + " GPU rank(s) on this host, but `nvidia-smi -L` lists "
                        + std::to_string(gpus) + " GPU(s)"
                        + (out->exitStatus != 0 ? " (it failed: " + trimmed(out->stderrText) + ")"
                                                : std::string())
                        + "; map the machine to a host with enough GPUs, or use --backend gloo");
    return okStatus();
}

} // namespace

void JobControl::fail(const std::string &why)
{
    std::lock_guard lock(m_mutex);
    if (m_failure.empty() && !m_stop.load())
        m_failure = why;
    m_stop = true;
}

void JobControl::failFirst(const std::string &why)
{
    std::lock_guard lock(m_mutex);
    m_failure = why;
    m_stop = true;
}

void JobControl::cancel()
{
    m_cancelled = true;
    m_stop = true;
}

std::string JobControl::failure() const
{
    std::lock_guard lock(m_mutex);
    return m_failure;
}

void JobControl::unreachable(const std::string &host)
{
    std::lock_guard lock(m_mutex);
    if (std::find(m_unreachable.begin(), m_unreachable.end(), host) == m_unreachable.end())
        m_unreachable.push_back(host);
}

std::vector<std::string> JobControl::unreachableHosts() const
{
    std::lock_guard lock(m_mutex);
    return m_unreachable;
}

std::string JobControl::stopSummary() const
{
    const std::vector<std::string> lost = unreachableHosts();
    if (lost.empty())
        return "; every rank on every host was stopped";
    std::string hosts;
    for (const std::string &h : lost)
        hosts += (hosts.empty() ? "" : ", ") + h;
    return "; the ranks on the other hosts were stopped; those on " + hosts
           + " could not be reached: their agent stops them and removes the job folder when "
             "its connection ends";
}

void emitMessage(const LaunchSink &sink, const std::string &host, const std::string &text)
{
    LaunchEvent event;
    event.kind = LaunchEvent::Kind::Message;
    event.host = host;
    event.text = text;
    sink(event);
}

Result<std::unique_ptr<SshSession>> checkHost(const HostWork &host, const LaunchSpec &spec,
                                              const LaunchSink &sink)
{
    HostKeyTrust trust{spec.knownHostsFile, {}, spec.acceptNewHostKeys};
    if (auto it = spec.confirmedFingerprints.find(host.destination);
        it != spec.confirmedFingerprints.end())
        trust.confirmedFingerprint = it->second;
    HostKeyInfo key;
    auto session = SshSession::connect(host.target, trust, &key);
    if (!session) {
        // Only a key the trust did not cover: an accepted new key may still fail later steps.
        if (key.state == HostKeyState::Unknown && !key.fingerprint.empty() && !trust.acceptAnyNewKey
            && trust.confirmedFingerprint != key.fingerprint) {
            LaunchEvent event;
            event.kind = LaunchEvent::Kind::UnknownKey;
            event.host = host.destination;
            event.keyType = key.keyType;
            event.fingerprint = key.fingerprint;
            sink(event);
        }
        return session.error();
    }
    // Every host runs its agent, hetplan-worker, whatever its ranks run.
    if (Status s = checkWorkerVersion(**session, host); !s)
        return s.error();
    if (host.gpusNeeded > 0) {
        if (Status s = checkGpus(**session, host); !s)
            return s.error();
    }
    return session;
}

Result<std::string> uploadJobFiles(SshSession &session, const HostWork &host,
                                   const std::vector<JobFile> &files)
{
    auto made = runCommand(session, makeJobFolderCommand(host.jobDir), session.target().timeoutS);
    if (!made)
        return made.error();
    const std::string jobDir = trimmed(made->stdoutText);
    if (made->exitStatus != 0 || !jobDir.starts_with('/'))
        return badInput(host.destination + ": cannot create the job folder " + host.jobDir + ": "
                        + trimmed(made->stderrText)
                        + "; check \"workdir\" in the hosts file (absolute, or relative to the "
                          "remote home)");
    std::vector<std::pair<std::string, std::string>> uploads;
    uploads.reserve(files.size());
    for (const JobFile &file : files)
        uploads.emplace_back(jobDir + "/" + file.name, file.content);
    if (Status s = session.upload(uploads); !s)
        return s.error();
    return jobDir;
}

bool connected(SshSession &session)
{
    return ssh_is_connected(session.handle()) != 0;
}

void removeJobFolder(SshSession &session, const HostWork &host, const std::string &jobDir,
                     const LaunchSink &sink)
{
    if (!connected(session))
        return;
    auto removed = runCommand(session, stopJobCommand(jobDir), session.target().timeoutS);
    if (!removed || removed->exitStatus != 0)
        emitMessage(sink, host.destination,
                    "could not remove the job folder " + jobDir + ": "
                        + (removed ? trimmed(removed->stderrText) : removed.error().message));
}

} // namespace hetplan::launch
