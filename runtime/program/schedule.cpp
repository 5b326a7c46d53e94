// One 1F1B iteration per stage replica (PipeDream-Flush, as Megatron-LM runs it), with the
// pipeline's own micro-batch count: warm-up forwards = the stages after this one (capped by the
// micro-batch count), then one forward and one backward in turn, then the cool-down backwards.
// Transfers that neighbouring stages post at the same time are fused into one Exchange
// ("send forward, receive backward" and "send backward, receive forward"): as blocking,
// unbuffered transfers done one after the other, two neighbours would both wait in a send.
#include "runtime/program/layout.h"

#include <algorithm>
#include <iterator>

namespace hetplan::runtime {

namespace {

class ReplicaSchedule
{
public:
    ReplicaSchedule(const Layout &layout, const JobProgram &program, int replicaIndex)
        : m_replica(layout.replicas[static_cast<size_t>(replicaIndex)])
        , m_samples(program.pipelines[static_cast<size_t>(m_replica.pipeline)])
    {
        for (const HopLink &hop : layout.hops) {
            if (hop.downstream == replicaIndex)
                m_upstream.push_back({hop, layout.replicas[size_t(hop.upstream)].leader()});
            if (hop.upstream == replicaIndex)
                m_downstream.push_back({hop, layout.replicas[size_t(hop.downstream)].leader()});
        }
    }

    // Appends the leader's ops to `out`; the other TP ranks run the same minus the exchanges.
    void leaderOps(std::vector<Op> &out)
    {
        m_ops.swap(out);
        const int stagesAfter = m_samples.stages - 1 - m_replica.stage;
        const int count = m_samples.microBatches;
        const int warmup = std::min(stagesAfter, count);
        const int steady = count - warmup;
        for (int m = 0; m < warmup; ++m) {
            receive(m, Payload::Activation, {});
            m_ops.emplace_back(Forward{m, rows(m)});
            exchange(sends(m, Payload::Activation), {});
        }
        if (steady > 0)
            receive(warmup, Payload::Activation, {});
        for (int i = 0; i < steady; ++i) {
            m_ops.emplace_back(Forward{warmup + i, rows(warmup + i)});
            receive(i, Payload::Gradient, sends(warmup + i, Payload::Activation));
            m_ops.emplace_back(Backward{i, rows(i)});
            if (i + 1 == steady)
                exchange(sends(i, Payload::Gradient), {});
            else
                receive(warmup + i + 1, Payload::Activation, sends(i, Payload::Gradient));
        }
        for (int m = steady; m < count; ++m) {
            receive(m, Payload::Gradient, {});
            m_ops.emplace_back(Backward{m, rows(m)});
            exchange(sends(m, Payload::Gradient), {});
        }
        m_ops.swap(out);
    }

private:
    struct Neighbour
    {
        HopLink hop;
        int leader;
    };

    // The rows of micro-batch m that `offset`, `count` of each micro-batch select.
    SampleRange rowsAt(int m, int offset, int count) const
    {
        const int base = m_samples.rows.begin + m * m_samples.microBatch + offset;
        return {base, base + count};
    }
    SampleRange rows(int m) const { return rowsAt(m, m_replica.rowOffset, m_replica.rowCount); }

    // Activations go downstream, gradients upstream; receives come from the other side.
    const std::vector<Neighbour> &towards(Payload payload, Direction direction) const
    {
        const bool down = (payload == Payload::Activation) == (direction == Direction::Send);
        return down ? m_downstream : m_upstream;
    }

    std::vector<Transfer> transfers(int m, Payload payload, Direction direction) const
    {
        std::vector<Transfer> out;
        for (const Neighbour &n : towards(payload, direction))
            out.push_back({direction, n.hop.group, n.leader, m,
                           rowsAt(m, n.hop.rowOffset, n.hop.rowCount), payload});
        return out;
    }
    std::vector<Transfer> sends(int m, Payload payload) const
    {
        return transfers(m, payload, Direction::Send);
    }

    void exchange(std::vector<Transfer> first, const std::vector<Transfer> &second)
    {
        first.insert(first.end(), second.begin(), second.end());
        if (!first.empty())
            m_ops.emplace_back(Exchange{std::move(first)});
    }

    // Receives `payload` of micro-batch m (together with `alongside`, sends that must progress
    // at the same time), then the leader broadcasts it to its TP group.
    void receive(int m, Payload payload, std::vector<Transfer> alongside)
    {
        const std::vector<Transfer> recvs = transfers(m, payload, Direction::Recv);
        exchange(std::move(alongside), recvs);
        if (!recvs.empty() && m_replica.tpGroup >= 0)
            m_ops.emplace_back(
                Broadcast{m_replica.tpGroup, m_replica.leader(), m, rows(m), payload});
    }

    const StageReplica &m_replica;
    const PipelineSamples &m_samples;
    std::vector<Neighbour> m_upstream;
    std::vector<Neighbour> m_downstream;
    std::vector<Op> m_ops; // being built by leaderOps()
};

} // namespace

// Per micro-batch a forward, a backward, two exchanges and two broadcasts.
long long scheduleOpBound(const JobProgram &program, const StageReplica &replica)
{
    return 6LL * program.pipelines[static_cast<size_t>(replica.pipeline)].microBatches;
}

void emitPrograms(const Layout &layout, std::vector<std::vector<Op>> syncs,
                  std::optional<int> onlyRank, JobProgram &program)
{
    for (int i = 0; i < static_cast<int>(layout.replicas.size()); ++i) {
        const StageReplica &replica = layout.replicas[static_cast<size_t>(i)];
        if (onlyRank
            && (*onlyRank < replica.firstRank || *onlyRank >= replica.firstRank + replica.tpDegree))
            continue;
        ReplicaSchedule schedule(layout, program, i);
        // Reserved once: a 240-GPU plan of 1024 micro-batches has a million ops.
        for (int t = 0; t < replica.tpDegree; ++t) {
            const size_t rank = static_cast<size_t>(replica.firstRank + t);
            program.programs[rank].reserve(size_t(scheduleOpBound(program, replica))
                                           + syncs[rank].size() + 1);
        }
        std::vector<Op> &leader = program.programs[static_cast<size_t>(replica.firstRank)];
        schedule.leaderOps(leader);
        for (int t = 1; t < replica.tpDegree; ++t)
            std::copy_if(leader.begin(), leader.end(),
                         std::back_inserter(program.programs[size_t(replica.firstRank + t)]),
                         [](const Op &op) { return !std::holds_alternative<Exchange>(op); });
        for (int t = 0; t < replica.tpDegree; ++t) {
            const size_t rank = static_cast<size_t>(replica.firstRank + t);
            std::move(syncs[rank].begin(), syncs[rank].end(),
                      std::back_inserter(program.programs[rank]));
            program.programs[rank].emplace_back(OptimizerStep{});
        }
        if (onlyRank) // the leader's and the followers' lists were only needed to copy from
            for (int t = 0; t < replica.tpDegree; ++t)
                if (replica.firstRank + t != *onlyRank)
                    std::vector<Op>().swap(program.programs[size_t(replica.firstRank + t)]);
    }
}

} // namespace hetplan::runtime
