// One rank's pre-flight (preflight_rank.h; docs/launcher.md, "Pre-flight").
#include "runtime/worker/preflight_rank.h"

#include "runtime/comm/comm.h"
#include "runtime/worker/executor.h"
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
// latency rounds, the untimed operation, and the timed ones, which stop at most one operation
// past the budget. Each operation gives up after `timeoutS`.
double checkBoundS(const PreflightCheck &check, double timeoutS, double budgetS)
{
    const int latencyOps = check.isHop() ? 2 * kLatencyRounds : kLatencyRounds;
    return (latencyOps + 2) * timeoutS + budgetS;
}

class PreflightRank
{
public:
    PreflightRank(Comm *comm, int rank, double budgetS)
        : m_comm(*comm)
        , m_rank(rank)
        , m_budgetS(budgetS)
    {}

    Result<PreflightResult> run(const PreflightCheck &check);

private:
    // One operation of the check, on `count` floats of m_buffer.
    Status once(const PreflightCheck &check, std::size_t count);
    Result<double> latency(const PreflightCheck &check);
    // One timed operation that also tells whether the members stop after it: the first
    // element carries the sender's wish (a hop) or the members' sum of wishes (an all-reduce),
    // so every member stops after the same operation without a round of its own.
    Result<bool> onceThenStop(const PreflightCheck &check, std::size_t count, bool stop);

    Comm &m_comm;
    int m_rank = 0;
    double m_budgetS = 1;
    std::vector<float> m_buffer;
    // Per group: its two members count the transfers between them alike, whatever other
    // checks either takes part in (the middle rank of a chain is in two hops).
    std::map<std::string, std::uint64_t> m_slots;
};

Status PreflightRank::once(const PreflightCheck &check, std::size_t count)
{
    if (!check.isHop())
        return m_comm.allReduceSum(check.group, m_buffer.data(), count);
    const std::uint64_t slot = m_slots[check.group]++;
    if (m_rank == check.from)
        return m_comm.send(check.group, check.to, m_buffer.data(), count, slot);
    return m_comm.recv(check.group, check.from, m_buffer.data(), count, slot);
}

Result<bool> PreflightRank::onceThenStop(const PreflightCheck &check, std::size_t count, bool stop)
{
    m_buffer[0] = stop ? 1.0f : 0.0f;
    if (Status s = once(check, count); !s)
        return s.error();
    return m_buffer[0] > 0.0f;
}

// A hop's latency is half a one-element round trip, timed by its sender; an all-reduce's is
// the whole one-element all-reduce.
Result<double> PreflightRank::latency(const PreflightCheck &check)
{
    double quickestS = 0;
    for (int round = 0; round < kLatencyRounds; ++round) {
        const Clock::time_point start = Clock::now();
        if (check.isHop()) {
            const bool sender = m_rank == check.from;
            const int peer = sender ? check.to : check.from;
            const std::uint64_t slot = m_slots[check.group]++;
            Status first = sender ? m_comm.send(check.group, peer, m_buffer.data(), 1, slot)
                                  : m_comm.recv(check.group, peer, m_buffer.data(), 1, slot);
            if (!first)
                return first.error();
            Status second = sender ? m_comm.recv(check.group, peer, m_buffer.data(), 1, slot)
                                   : m_comm.send(check.group, peer, m_buffer.data(), 1, slot);
            if (!second)
                return second.error();
        } else if (Status s = once(check, 1); !s) {
            return s.error();
        }
        const double s = check.isHop() ? since(start) / 2 : since(start);
        quickestS = round == 0 ? s : std::min(quickestS, s);
    }
    return quickestS;
}

Result<PreflightResult> PreflightRank::run(const PreflightCheck &check)
{
    const std::size_t count
        = std::max<std::size_t>(1, std::size_t(std::ceil(check.messageBytes / sizeof(float))));
    m_buffer.assign(count, 1.0f);
    PreflightResult result;
    result.rank = m_rank;
    auto latencyS = latency(check);
    if (!latencyS)
        return latencyS.error();
    if (!check.isHop() || m_rank == check.from)
        result.latencyS = *latencyS;
    // One untimed operation (connections warm, buffers touched).
    if (Status s = once(check, count); !s)
        return s.error();
    // Timed operations until a member's budget is up: at most one operation past it.
    const Clock::time_point start = Clock::now();
    for (bool stop = false; !stop;) {
        auto stopped = onceThenStop(check, count, since(start) >= m_budgetS);
        if (!stopped)
            return stopped.error();
        ++result.ops;
        stop = *stopped || result.ops == kMaxOps;
    }
    result.seconds = since(start);
    return result;
}

} // namespace

void runPreflightRank(const WorkerArgs &args, const Job &job, std::ostream &out)
{
    const int rank = args.rank;
    const std::vector<PreflightCheck> checks = preflightChecks(job);
    std::string failure; // once set, the rank's later checks are not run
    std::unique_ptr<Comm> comm;
    auto opened = Comm::open(args.comm, rank, args.world);
    if (opened) {
        comm = std::move(opened).value();
        if (Status connected = comm->connect(Executor::groupsToConnect(job.program)); !connected)
            failure = "opening the plan's communicators failed: " + connected.error().message;
    } else {
        failure = "opening the plan's communicators failed: " + opened.error().message;
    }
    std::optional<PreflightRank> runner;
    if (failure.empty())
        runner.emplace(comm.get(), rank, args.preflightS);
    // Before the first check, ranks may still be connecting groups they are in, each within
    // the timeout; before a later check, the previous check's members may still run it.
    double waitS = args.comm.timeoutS * double(std::max<std::size_t>(1, job.program.groups.size()));
    for (std::size_t i = 0; i < checks.size(); ++i) {
        const PreflightCheck &check = checks[i];
        // Every rank starts each check together, so no other check's traffic shares the links
        // while one is timed. A rank waits here for peers still busy with the previous check,
        // for as long as that check may take plus the timeout: a rank that is no member of a
        // long check must not give up on its members (docs/launcher.md, "Pre-flight").
        if (failure.empty() && args.world > 1)
            if (Status s = comm->barrier(Executor::kWorldGroup, waitS); !s)
                failure = "waiting for every rank before check " + std::to_string(i)
                          + " failed: " + s.error().message;
        waitS = checkBoundS(check, args.comm.timeoutS, args.preflightS) + args.comm.timeoutS;
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
        out << preflightLine(result) << std::endl;
    }
}

} // namespace hetplan::runtime
