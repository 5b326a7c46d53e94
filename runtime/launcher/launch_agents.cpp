// The running phase (launch_agents.h): every host's agent channel watched by one loop, frames in
// and out as docs/launcher.md, "The host agent" describes them.
#include "runtime/launcher/launch_agents.h"

#include "base/version.h"
#include "runtime/agent/store_keys.h"
#include "runtime/launcher/launch_commands.h"
#include "runtime/launcher/remote_command.h"

#include <chrono>
#include <csignal>
#include <optional>

namespace hetplan::launch {

namespace {

using agent::Frame;
using agent::FrameKind;
using Clock = std::chrono::steady_clock;

// How long the loop sleeps when no channel has anything: the latency of a stop request.
constexpr int kIdleWaitMs = 20;
// The agent's own stderr kept for a message (the reason it could not start, typically).
constexpr std::size_t kMaxAgentStderrBytes = 4096;

Clock::duration seconds(double s)
{
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

// One host's agent and what the loop knows of it.
struct Link
{
    const AgentHost *where = nullptr;
    std::unique_ptr<RemoteCommand> channel; // null once closed
    agent::FrameReader reader;
    std::string agentStderr;
    bool specSent = false;
    bool cancelSent = false;
    bool finished = false;
    Clock::time_point lastHeard;
    Clock::time_point lastSent;
    std::map<std::uint32_t, int> storeRankOf; // a pending store request's id → its rank

    const std::string &destination() const { return where->host->destination; }
    bool open() const { return channel != nullptr; }
};

std::string rankOnHost(int rank, const Link &link)
{
    return "rank " + std::to_string(rank) + " on " + link.destination();
}

std::string agentSaid(const Link &link)
{
    std::string said = link.agentStderr;
    while (!said.empty() && (said.back() == '\n' || said.back() == '\r'))
        said.pop_back();
    return said.empty() ? std::string() : ": " + said;
}

class AgentLoop
{
public:
    AgentLoop(const std::vector<AgentHost> &hosts, const JobLayout &layout, const LaunchSpec &spec,
              JobControl &control, const LaunchSink &sink)
        : m_layout(layout)
        , m_spec(spec)
        , m_control(control)
        , m_sink(sink)
    {
        m_links.resize(hosts.size());
        for (std::size_t i = 0; i < hosts.size(); ++i)
            m_links[i].where = &hosts[i];
        m_masterPort = randomPort();
    }

    void run();
    RankResults takeResults() { return std::move(m_results); }
    bool finished(std::size_t i) const { return m_links[i].finished; }

private:
    void start(Link &link);
    void pump(std::size_t index);
    void handle(std::size_t index, const Frame &frame);
    void send(Link &link, FrameKind kind, int rank, std::string payload);
    void sendSpec(Link &link);
    void answerStore(std::size_t index, const Frame &frame);
    // The channel is gone: closes it; `lost` tells the job why, unless it had finished.
    void close(std::size_t index, const std::string &lost);
    void rankFailed(const Link &link, const Frame &exited);
    void stopEveryAgent();

    const JobLayout &m_layout;
    const LaunchSpec &m_spec;
    JobControl &m_control;
    const LaunchSink &m_sink;
    std::vector<Link> m_links;
    agent::StoreKeys m_store;
    RankResults m_results;
    int m_masterPort = 0;
    std::optional<Clock::time_point> m_firstRankFailure;
};

void AgentLoop::start(Link &link)
{
    const HostWork &host = *link.where->host;
    auto started = link.where->session->start(agentCommand(link.where->jobDir, host.worker));
    link.lastHeard = link.lastSent = Clock::now();
    if (!started) {
        m_control.fail(host.destination
                       + ": the job's agent did not start: " + started.error().message);
        return;
    }
    link.channel = std::move(started).value();
}

void AgentLoop::send(Link &link, FrameKind kind, int rank, std::string payload)
{
    if (!link.open())
        return;
    link.lastSent = Clock::now();
    if (Status s = link.channel->write(agent::encodeFrame({kind, rank, std::move(payload)})); !s)
        close(std::size_t(&link - m_links.data()), s.error().message);
}

void AgentLoop::sendSpec(Link &link)
{
    agent::AgentSpec spec;
    spec.jobDir = link.where->jobDir;
    spec.graceS = m_spec.stopGraceS;
    spec.serveStore = m_layout.serveStore;
    for (const RankStart &rank : link.where->host->ranks)
        spec.ranks.push_back(rankProcess(rank, link.where->jobDir, m_masterPort));
    link.specSent = true;
    send(link, FrameKind::Spec, -1, agent::encodeSpec(spec));
}

void AgentLoop::answerStore(std::size_t index, const Frame &frame)
{
    Link &link = m_links[index];
    auto request = agent::decodeStoreRequest(frame.payload);
    if (!request) {
        close(index, link.destination()
                         + ": the agent sent a broken store request: " + request.error().message);
        return;
    }
    link.storeRankOf[request->id] = frame.rank;
    for (agent::StoreKeys::Due &due : m_store.handle(int(index), *request)) {
        Link &to = m_links[std::size_t(due.asker)];
        const auto rank = to.storeRankOf.find(due.reply.id);
        const int toRank = rank == to.storeRankOf.end() ? -1 : rank->second;
        if (rank != to.storeRankOf.end())
            to.storeRankOf.erase(rank);
        send(to, FrameKind::StoreReply, toRank, agent::encodeStoreReply(due.reply));
    }
}

void AgentLoop::handle(std::size_t index, const Frame &frame)
{
    Link &link = m_links[index];
    switch (frame.kind) {
    case FrameKind::Ready: {
        const std::string expected = "hetplan-worker " + std::string(kVersion);
        if (frame.payload != expected) {
            m_control.fail(link.destination() + ": the job's agent is '" + frame.payload
                           + "', this launcher needs '" + expected
                           + "': install the same HetPlan version on every host");
            close(index, {});
        } else if (!link.specSent && !m_control.stopping()) {
            sendSpec(link);
        }
        break;
    }
    case FrameKind::Stdout:
    case FrameKind::Stderr: {
        LaunchEvent event;
        event.kind = LaunchEvent::Kind::Output;
        event.rank = frame.rank;
        event.host = link.destination();
        event.isStderr = frame.kind == FrameKind::Stderr;
        event.text = frame.payload;
        m_sink(event);
        break;
    }
    case FrameKind::Exited:
        if (frame.payload != "exit 0")
            rankFailed(link, frame);
        break;
    case FrameKind::Result:
        m_results[frame.rank] = frame.payload;
        break;
    case FrameKind::StoreRequest:
        answerStore(index, frame);
        break;
    case FrameKind::Message:
        emitMessage(m_sink, link.destination(), frame.payload);
        break;
    case FrameKind::Finished:
        link.finished = true;
        break;
    default: // Started, Heartbeat: being heard is all
        break;
    }
}

// The ranks of a job fail together: when one is killed, its peers fail on their connections to
// it, and their reports may arrive first. A rank killed by a signal other than the stop's TERM
// before the stop could have killed anything (within the grace period of the first failure)
// is the cause, and is told instead.
void AgentLoop::rankFailed(const Link &link, const Frame &exited)
{
    const bool signalled = exited.payload.starts_with("signal ");
    const std::string number = exited.payload.substr(exited.payload.find(' ') + 1);
    const std::string why = rankOnHost(exited.rank, link) + " failed ("
                            + (signalled ? "killed by signal " : "exit status ") + number + ")";
    const Clock::time_point now = Clock::now();
    if (!m_firstRankFailure) {
        m_firstRankFailure = now;
        m_control.fail(why);
    } else if (signalled && number != std::to_string(SIGTERM) && !m_control.cancelled()
               && now - *m_firstRankFailure < seconds(m_spec.stopGraceS)) {
        m_control.failFirst(why);
    }
}

void AgentLoop::close(std::size_t index, const std::string &lost)
{
    Link &link = m_links[index];
    link.channel.reset();
    m_store.forget(int(index));
    link.storeRankOf.clear();
    if (link.finished || lost.empty())
        return;
    if (!connected(*link.where->session)) {
        m_control.fail("host " + link.destination() + " disconnected (" + lost + ")");
        m_control.unreachable(link.destination());
    } else {
        m_control.fail(lost);
    }
}

void AgentLoop::pump(std::size_t index)
{
    Link &link = m_links[index];
    const std::size_t before = link.reader.pendingBytes();
    Result<bool> running = link.channel->poll(0, [&](OutputStream stream, std::string_view text) {
        if (stream == OutputStream::Stdout)
            link.reader.feed(text);
        else if (link.agentStderr.size() < kMaxAgentStderrBytes)
            link.agentStderr.append(text.substr(
                0, std::min(text.size(), kMaxAgentStderrBytes - link.agentStderr.size())));
    });
    if (link.reader.pendingBytes() != before)
        link.lastHeard = Clock::now();
    for (;;) {
        auto frame = link.reader.next();
        if (!frame) {
            close(index,
                  link.destination() + ": the agent's stream broke: " + frame.error().message);
            return;
        }
        if (!*frame)
            break;
        handle(index, **frame);
        if (!link.open())
            return;
    }
    if (!running) {
        close(index, running.error().message);
    } else if (!*running) {
        const std::string status = std::to_string(*link.channel->exitStatus());
        close(index, link.destination() + ": the job's agent ended (exit status " + status
                         + ") before its ranks had finished" + agentSaid(link));
    }
}

void AgentLoop::stopEveryAgent()
{
    for (std::size_t i = 0; i < m_links.size(); ++i) {
        Link &link = m_links[i];
        if (!link.open() || link.cancelSent)
            continue;
        link.cancelSent = true;
        if (link.specSent)
            send(link, FrameKind::Cancel, -1, {});
        else
            close(i, {}); // nothing started there: the agent ends with its channel
    }
}

void AgentLoop::run()
{
    for (Link &link : m_links)
        if (!m_control.stopping())
            start(link);
    std::optional<Clock::time_point> stopDeadline;
    for (;;) {
        if (m_control.stopping() && !stopDeadline) {
            stopEveryAgent();
            stopDeadline = Clock::now() + seconds(m_spec.stopGraceS + m_spec.connectTimeoutS);
        }
        std::vector<RemoteCommand *> open;
        for (std::size_t i = 0; i < m_links.size(); ++i) {
            if (m_links[i].open())
                pump(i);
            if (m_links[i].open())
                open.push_back(m_links[i].channel.get());
        }
        if (open.empty())
            return;
        const Clock::time_point now = Clock::now();
        if (stopDeadline && now > *stopDeadline) {
            for (std::size_t i = 0; i < m_links.size(); ++i)
                if (m_links[i].open()) {
                    emitMessage(m_sink, m_links[i].destination(),
                                "the job's agent did not finish in time after Cancel");
                    m_control.unreachable(m_links[i].destination());
                    close(i, {});
                }
            return;
        }
        for (std::size_t i = 0; i < m_links.size(); ++i) {
            Link &link = m_links[i];
            if (!link.open())
                continue;
            if (now - link.lastHeard > seconds(m_spec.agentSilenceS))
                close(i, "host " + link.destination() + ": its agent said nothing for "
                             + std::to_string(int(m_spec.agentSilenceS)) + " s");
            else if (link.specSent && now - link.lastSent > seconds(agent::kHeartbeatIntervalS))
                send(link, FrameKind::Heartbeat, -1, {});
        }
        // A silent agent or a failed heartbeat closed its channel just now: wait on the others.
        open.clear();
        for (const Link &link : m_links)
            if (link.open())
                open.push_back(link.channel.get());
        if (!open.empty())
            RemoteCommand::waitForAny(open, kIdleWaitMs);
    }
}

} // namespace

Result<RankResults> runAgents(const std::vector<AgentHost> &hosts, const JobLayout &layout,
                              const LaunchSpec &spec, JobControl &control, const LaunchSink &sink,
                              std::vector<bool> *finished, RankResults *stopped)
{
    AgentLoop loop(hosts, layout, spec, control, sink);
    loop.run();
    finished->assign(hosts.size(), false);
    for (std::size_t i = 0; i < hosts.size(); ++i)
        (*finished)[i] = loop.finished(i);
    if (control.stopping()) {
        if (stopped != nullptr)
            *stopped = loop.takeResults();
        return Error{ErrorKind::Internal, control.failure() + control.stopSummary()};
    }
    RankResults results = loop.takeResults();
    for (const AgentHost &host : hosts)
        for (const RankStart &rank : host.host->ranks)
            if (!rank.resultFile.empty() && !results.contains(rank.rank))
                return Error{ErrorKind::Internal,
                             "rank " + std::to_string(rank.rank) + " on " + host.host->destination
                                 + " ended without its result file " + rank.resultFile};
    return results;
}

} // namespace hetplan::launch
