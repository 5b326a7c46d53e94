// One host's share of a launch job (launch_host.h): preflight, the rendezvous, its ranks and
// their stop. Each host has its own thread and SshSession (libssh: one thread per session).
#include "runtime/launcher/launch_host.h"

#include "base/version.h"
#include "runtime/launcher/launch_commands.h"

#include <algorithm>
#include <chrono>
#include <libssh/libssh.h>
#include <random>
#include <sstream>
#include <thread>

namespace hetplan::launch {

namespace {

using Clock = std::chrono::steady_clock;

// How long one rank's channel is waited on per round: the watch loop's share of the latency
// of a stop request, per rank of the host.
constexpr int kPollMs = 10;
// After the stop command, the ranks' channels get this long to report their end.
constexpr double kDrainS = 5;
constexpr int kRendezvousAttempts = 3;

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

void emitOutput(const LaunchSink &sink, const HostWork &host, int rank, OutputStream stream,
                std::string_view text)
{
    LaunchEvent event;
    event.kind = LaunchEvent::Kind::Output;
    event.rank = rank;
    event.host = host.destination;
    event.isStderr = stream == OutputStream::Stderr;
    event.text = std::string(text);
    sink(event);
}

// Whether the connection still stands: a poll error on a dropped one is the host's, not a rank's.
bool connected(SshSession &session)
{
    return ssh_is_connected(session.handle()) != 0;
}

struct LiveRank
{
    int rank = 0;
    std::unique_ptr<RemoteCommand> command;
    bool running = true;
};

// One round over the host's ranks; returns whether any still runs.
bool watchRanks(std::vector<LiveRank> &live, SshSession &session, const HostWork &host,
                JobControl &control, std::atomic<int> &runningRanks, const LaunchSink &sink)
{
    bool any = false;
    for (LiveRank &l : live) {
        if (!l.running)
            continue;
        Result<bool> polled = l.command->poll(kPollMs, [&](OutputStream s, std::string_view t) {
            emitOutput(sink, host, l.rank, s, t);
        });
        if (polled && *polled) {
            any = true;
            continue;
        }
        l.running = false;
        --runningRanks;
        const std::string rank = "rank " + std::to_string(l.rank) + " on " + host.destination;
        if (!polled && !connected(session)) {
            control.fail("host " + host.destination + " disconnected (rank "
                         + std::to_string(l.rank) + " was running there)");
            control.unreachable(host.destination);
        } else if (!polled) {
            control.fail(rank + ": " + polled.error().message);
        } else if (*l.command->exitStatus() != 0) {
            control.fail(rank + " failed (exit status " + std::to_string(*l.command->exitStatus())
                         + ")");
        }
    }
    return any;
}

// Stops whatever of the job still runs on the host, then lets the ranks' channels report
// their end (bounded), so no output is lost and every channel is closed cleanly.
void stopHost(HostRun &run, std::vector<LiveRank> &live, int groups, JobControl &control,
              const LaunchSink &sink)
{
    if (!connected(run.session)) {
        control.unreachable(run.host.destination);
        return;
    }
    auto stopped = runCommand(run.session, stopCommand(run.host.jobDir, groups, run.graceS),
                              run.graceS + run.session.target().timeoutS);
    if (!stopped)
        emitMessage(sink, run.host.destination,
                    "stopping the job's processes failed: " + stopped.error().message);
    else if (trimmed(stopped->stdoutText).starts_with("killed"))
        emitMessage(sink, run.host.destination,
                    "processes still running " + std::to_string(run.graceS)
                        + " s after TERM were killed");
    const auto deadline = Clock::now() + std::chrono::duration<double>(kDrainS);
    for (LiveRank &l : live) {
        while (l.running && Clock::now() < deadline) {
            Result<bool> polled = l.command->poll(kPollMs, [&](OutputStream s, std::string_view t) {
                emitOutput(sink, run.host, l.rank, s, t);
            });
            l.running = polled && *polled;
        }
    }
}

} // namespace

void JobControl::fail(const std::string &why)
{
    std::lock_guard lock(m_mutex);
    if (m_failure.empty() && !m_stop.load())
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
    return "; the ranks on the other hosts were stopped, those on " + hosts
           + " could not be reached (they give up when their peers are gone, after the rank "
             "timeout at most)";
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
    if (!host.ranks.empty() && host.ranks.front().worker)
        if (Status s = checkWorkerVersion(**session, host); !s)
            return s.error();
    if (host.gpusNeeded > 0) {
        if (Status s = checkGpus(**session, host); !s)
            return s.error();
    }
    return session;
}

Status uploadJobFiles(SshSession &session, const HostWork &host, const std::vector<JobFile> &files)
{
    auto made = runCommand(session, makeDirectoryCommand(host.jobDir), session.target().timeoutS);
    if (!made)
        return made.error();
    if (made->exitStatus != 0)
        return badInput(host.destination + ": cannot create the job folder " + host.jobDir + ": "
                        + trimmed(made->stderrText)
                        + "; check \"workdir\" in the hosts file (absolute, or relative to the "
                          "remote home)");
    for (const JobFile &file : files)
        if (Status s = session.upload(file.content, host.jobDir + "/" + file.name); !s)
            return s;
    return okStatus();
}

int randomPort()
{
    std::random_device random;
    return std::uniform_int_distribution<int>(20000, 59999)(random);
}

Result<std::unique_ptr<RemoteCommand>> startRendezvous(SshSession &session, const HostWork &host,
                                                       const std::string &address,
                                                       const JobControl &control, int *port)
{
    std::string lastOutput;
    for (int attempt = 0; attempt < kRendezvousAttempts; ++attempt) {
        *port = randomPort();
        auto started = session.start(redisCommand(host.jobDir, address, *port));
        if (!started)
            return started.error();
        std::string output;
        const auto deadline = Clock::now() + std::chrono::seconds(session.target().timeoutS);
        for (;;) {
            Result<bool> polled = (*started)->poll(
                50, [&output](OutputStream, std::string_view text) { output.append(text); });
            if (output.find("Ready to accept connections") != std::string::npos)
                return std::move(started).value();
            if (!polled || !*polled || control.stopping() || Clock::now() > deadline)
                break;
        }
        lastOutput = trimmed(output);
        if (control.stopping())
            return Error{ErrorKind::Cancelled, "cancelled while starting the rendezvous"};
        if (lastOutput.find("already in use") == std::string::npos)
            break;
    }
    return Error{ErrorKind::Internal,
                 host.destination + ": the job's rendezvous (redis-server on " + address
                     + ") did not start: " + (lastOutput.empty() ? "no output" : lastOutput)
                     + "; rank 0's host needs redis-server (Debian: redis-server)"};
}

void runHost(HostRun run, JobControl &control, std::atomic<int> &runningRanks,
             const LaunchSink &sink)
{
    std::vector<LiveRank> live;
    int groups = run.rendezvous ? 1 : 0;
    for (const RankStart &rank : run.host.ranks) {
        if (control.stopping()) {
            --runningRanks;
            continue;
        }
        auto started = run.session.start(rankCommand(run.layout, run.host, rank, run.port));
        if (!started) {
            --runningRanks;
            control.fail("rank " + std::to_string(rank.rank) + " on " + run.host.destination
                         + " did not start: " + started.error().message);
            continue;
        }
        live.push_back({rank.rank, std::move(started).value(), true});
        ++groups;
    }
    bool anyHere = true;
    while (!control.stopping() && runningRanks.load() > 0) {
        anyHere = watchRanks(live, run.session, run.host, control, runningRanks, sink);
        if (run.rendezvous) {
            Result<bool> polled = run.rendezvous->poll(anyHere ? 0 : 50, nullptr);
            if (!polled || !*polled)
                control.fail("the job's rendezvous (redis-server) on " + run.host.destination
                             + " ended while ranks were running");
        } else if (!anyHere) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    }
    const bool leftovers
        = run.rendezvous != nullptr
          || std::any_of(live.begin(), live.end(), [](const LiveRank &l) { return l.running; });
    if (leftovers)
        stopHost(run, live, groups, control, sink);
}

Result<std::vector<std::string>> fetchResults(SshSession &session, const HostWork &host)
{
    std::vector<std::string> texts;
    for (const RankStart &rank : host.ranks) {
        if (rank.resultPath.empty())
            continue;
        auto text = session.download(rank.resultPath);
        if (!text)
            return text.error();
        texts.push_back(std::move(text).value());
    }
    return texts;
}

void removeJobFolder(SshSession &session, const HostWork &host, const LaunchSink &sink)
{
    if (!connected(session))
        return;
    auto removed
        = runCommand(session, removeDirectoryCommand(host.jobDir), session.target().timeoutS);
    if (!removed || removed->exitStatus != 0)
        emitMessage(sink, host.destination,
                    "could not remove the job folder " + host.jobDir + ": "
                        + (removed ? trimmed(removed->stderrText) : removed.error().message));
}

} // namespace hetplan::launch
