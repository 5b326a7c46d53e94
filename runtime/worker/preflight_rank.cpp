// One rank's pre-flight (preflight_rank.h; docs/launcher.md, "Pre-flight").
#include "runtime/worker/preflight_rank.h"

#include "core/model/workload.h"
#include "runtime/worker/executor.h"
#include "runtime/worker/gloo_backend.h"
#include "runtime/worker/preflight_checks.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hetplan::runtime {

namespace {

using Clock = std::chrono::steady_clock;

// One-element operations whose quickest gives the latency.
constexpr int kLatencyRounds = 5;
// Timed operations per check, at most.
constexpr int kMaxOps = 1000;

double since(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// The longest a member may take for `check` without any of its operations timing out: its
// latency rounds, the untimed operation, and the timed ones with their agreements, which stop
// at most one operation past the budget. An operation and the wait for the device after it
// each give up after `timeoutS`.
double checkBoundS(const PreflightCheck &check, double timeoutS, double budgetS)
{
    const int latencyOps = check.isHop() ? 2 * kLatencyRounds : kLatencyRounds;
    return (latencyOps + 3) * 2 * timeoutS + budgetS;
}

class PreflightRank
{
public:
    PreflightRank(Backend *backend, int rank, double budgetS)
        : m_backend(*backend)
        , m_rank(rank)
        , m_budgetS(budgetS)
    {}

    Result<PreflightResult> run(const PreflightCheck &check);

private:
    // One operation of the check on `count` elements of m_buffer, as the plan's run sends them
    // (its wire type), until the device is done with it.
    Status once(const PreflightCheck &check, std::size_t count, Traffic traffic);
    // One send or receive of a hop, `sending` or not.
    Status transfer(const PreflightCheck &check, bool sending, std::size_t count, Traffic traffic);
    Result<double> latency(const PreflightCheck &check);
    // Whether the members stop now: any member's budget is up (an untimed one-element sum).
    Result<bool> stopTogether(const PreflightCheck &check, bool stop);

    Backend &m_backend;
    int m_rank = 0;
    double m_budgetS = 1;
    Floats m_buffer;
    // Per group: its two members count the transfers between them alike, whatever other
    // checks either takes part in (the middle rank of a chain is in two hops).
    std::map<std::string, std::uint64_t> m_slots;
};

Status PreflightRank::transfer(const PreflightCheck &check, bool sending, std::size_t count,
                               Traffic traffic)
{
    const std::uint64_t slot = m_slots[check.group]++;
    const int peer = m_rank == check.from ? check.to : check.from;
    double untimedS = 0;
    if (Status s = m_backend.exchange({{check.group, peer, m_buffer.data, count, slot, sending}},
                                      untimedS, traffic);
        !s)
        return s;
    return m_backend.synchronize();
}

Status PreflightRank::once(const PreflightCheck &check, std::size_t count, Traffic traffic)
{
    if (check.isHop())
        return transfer(check, m_rank == check.from, count, traffic);
    double untimedS = 0;
    Status s = okStatus();
    // A gradient group's all-reduce as the run's gradient sync makes it: one bucket.
    if (check.kind == GroupKind::Gradient && traffic == Traffic::Payload)
        s = m_backend.allReduceGradients(
            check.group, {{m_buffer.data, std::min(count, m_backend.bucketElements()), nullptr}},
            1.0f, untimedS);
    else
        s = m_backend.allReduceSum(check.group, m_buffer.data, count, untimedS, traffic);
    if (!s)
        return s;
    return m_backend.synchronize();
}

Result<bool> PreflightRank::stopTogether(const PreflightCheck &check, bool stop)
{
    float wishes = stop ? 1.0f : 0.0f;
    if (Status s = m_backend.allReduceHostSum(check.group, &wishes, 1); !s)
        return s.error();
    return wishes > 0.0f;
}

// A hop's latency is half a one-element round trip, timed by its sender; an all-reduce's is
// the whole one-element all-reduce. One element, fp32, as the run's handshakes.
Result<double> PreflightRank::latency(const PreflightCheck &check)
{
    double quickestS = 0;
    for (int round = 0; round < kLatencyRounds; ++round) {
        const Clock::time_point start = Clock::now();
        if (check.isHop()) {
            const bool sender = m_rank == check.from;
            if (Status s = transfer(check, sender, 1, Traffic::Handshake); !s)
                return s.error();
            if (Status s = transfer(check, !sender, 1, Traffic::Handshake); !s)
                return s.error();
        } else if (Status s = once(check, 1, Traffic::Handshake); !s) {
            return s.error();
        }
        const double s = check.isHop() ? since(start) / 2 : since(start);
        quickestS = round == 0 ? s : std::min(quickestS, s);
    }
    return quickestS;
}

// Each timed operation on the host's clock, from its call until the device is done with it
// (no-op for Gloo), so both backends are timed alike and the agreement between operations is
// not timed.
Result<PreflightResult> PreflightRank::run(const PreflightCheck &check)
{
    const double elementBytes = bytesPerElement(m_backend.wire());
    const std::size_t count
        = std::max<std::size_t>(1, std::size_t(std::ceil(check.messageBytes / elementBytes)));
    auto buffer = m_backend.allocate(count);
    if (!buffer)
        return buffer.error();
    m_buffer = std::move(buffer).value();
    PreflightResult result;
    result.rank = m_rank;
    auto latencyS = latency(check);
    if (!latencyS)
        return latencyS.error();
    if (!check.isHop() || m_rank == check.from)
        result.latencyS = *latencyS;
    // One untimed operation (connections warm, buffers touched).
    if (Status s = once(check, count, Traffic::Payload); !s)
        return s.error();
    const Clock::time_point start = Clock::now();
    for (bool stop = false; !stop;) {
        const Clock::time_point op = Clock::now();
        if (Status s = once(check, count, Traffic::Payload); !s)
            return s.error();
        result.seconds += since(op);
        ++result.ops;
        auto stopped = stopTogether(check, since(start) >= m_budgetS || result.ops == kMaxOps);
        if (!stopped)
            return stopped.error();
        stop = *stopped;
    }
    return result;
}

} // namespace

Result<PreflightLinks> openGlooPreflight(const WorkerArgs &args, const Job &job)
{
    auto opened = Comm::open(args.comm, args.rank, args.world);
    if (!opened)
        return opened.error();
    PreflightLinks links;
    links.transport = "gloo";
    links.comm = std::move(opened).value();
    if (Status connected = links.comm->connect(Executor::groupsToConnect(job.program)); !connected)
        return connected.error();
    links.backend = std::make_unique<GlooBackend>(*links.comm);
    links.everyRank = [comm = links.comm.get()](double timeoutS) {
        return comm->barrier(Executor::kWorldGroup, timeoutS);
    };
    return links;
}

void runPreflightRank(const WorkerArgs &args, const Job &job, Result<PreflightLinks> opened,
                      std::ostream &out)
{
    const int rank = args.rank;
    const std::vector<PreflightCheck> checks = preflightChecks(job);
    std::string failure; // once set, the rank's later checks are not run
    std::string transport;
    std::optional<PreflightRank> runner;
    if (opened) {
        transport = opened->transport;
        runner.emplace(opened->backend.get(), rank, args.preflightS);
    } else {
        failure = "opening the plan's communicators failed: " + opened.error().message;
    }
    // Before the first check, ranks may still be connecting groups they are in, each within
    // the timeout; before a later check, the previous check's members may still run it.
    const double timeoutS = args.comm.timeoutS;
    double waitS = timeoutS * double(std::max<std::size_t>(1, job.program.groups.size()));
    for (std::size_t i = 0; i < checks.size(); ++i) {
        const PreflightCheck &check = checks[i];
        // Every rank starts each check together, so no other check's traffic shares the links
        // while one is timed. A rank waits here for peers still busy with the previous check,
        // for as long as that check may take plus the timeout: a rank that is no member of a
        // long check must not give up on its members (docs/launcher.md, "Pre-flight").
        if (failure.empty() && args.world > 1)
            if (Status s = opened->everyRank(waitS); !s)
                failure = "waiting for every rank before check " + std::to_string(i)
                          + " failed: " + s.error().message;
        waitS = checkBoundS(check, timeoutS, args.preflightS) + timeoutS;
        if (std::find(check.members.begin(), check.members.end(), rank) == check.members.end())
            continue;
        PreflightResult result;
        if (failure.empty()) {
            auto measured = runner->run(check);
            if (measured)
                result = *measured;
            else
                failure = result.error = measured.error().message;
        } else {
            result.error = "not run: " + failure;
        }
        result.check = int(i);
        result.rank = rank;
        result.transport = transport;
        out << preflightLine(result) << std::endl;
    }
}

} // namespace hetplan::runtime
