#include "runtime/serve/serve_links.h"

#include <algorithm>

namespace hetplan::runtime {

namespace {

std::string returnGroup(int pipeline)
{
    std::string key = "serve/p";
    key += std::to_string(pipeline);
    key += "/return";
    return key;
}

// The world rank of the leader of `stage` of `pipeline`.
int leaderOf(const JobProgram &program, int pipeline, int stage)
{
    for (const Rank &r : program.ranks)
        if (r.pipeline == pipeline && r.stage == stage && r.leader())
            return r.rank;
    return -1;
}

// The key of the group of `kind` whose members are exactly `members` (ascending), or empty.
std::string groupWith(const JobProgram &program, GroupKind kind, std::vector<int> members)
{
    std::sort(members.begin(), members.end());
    for (const Group &g : program.groups)
        if (g.kind == kind && g.members == members)
            return g.key;
    return {};
}

class GlooTpComm final : public TpComm
{
public:
    GlooTpComm(Comm &comm, std::string group)
        : m_comm(comm)
        , m_group(std::move(group))
    {}
    Status allReduceSum(float *data, std::size_t count) override
    {
        return m_group.empty() ? okStatus() : m_comm.allReduceSum(m_group, data, count);
    }

private:
    Comm &m_comm;
    std::string m_group;
};

class GlooServeLinks final : public ServeLinks
{
public:
    GlooServeLinks(Comm &comm, const JobProgram &program, int rank)
        : m_comm(comm)
        , m_tp(comm, tpGroupOf(program, rank))
    {
        const Rank &me = program.ranks[std::size_t(rank)];
        m_stageGroup = tpGroupOf(program, rank);
        m_stageLeader = leaderOf(program, me.pipeline, me.stage);
        const int stages = program.pipelines[std::size_t(me.pipeline)].stages;
        if (me.stage > 0) {
            m_previous = leaderOf(program, me.pipeline, me.stage - 1);
            m_previousGroup = groupWith(program, GroupKind::Hop, {m_previous, rank});
        }
        if (me.stage + 1 < stages) {
            m_next = leaderOf(program, me.pipeline, me.stage + 1);
            m_nextGroup = groupWith(program, GroupKind::Hop, {rank, m_next});
        }
        if (stages > 1) {
            m_first = leaderOf(program, me.pipeline, 0);
            m_last = leaderOf(program, me.pipeline, stages - 1);
            m_returnGroup = returnGroup(me.pipeline);
        }
    }

    TpComm &tp() override { return m_tp; }
    Status sendToNext(const float *data, std::size_t count) override
    {
        return m_comm.send(m_nextGroup, m_next, data, count, kSlot);
    }
    Status recvFromPrevious(float *data, std::size_t count) override
    {
        return m_comm.recv(m_previousGroup, m_previous, data, count, kSlot);
    }
    Status sendToFirst(const float *data, std::size_t count) override
    {
        return m_comm.send(m_returnGroup, m_first, data, count, kSlot);
    }
    Status recvFromLast(float *data, std::size_t count) override
    {
        return m_comm.recv(m_returnGroup, m_last, data, count, kSlot);
    }
    Status broadcastInStage(float *data, std::size_t count) override
    {
        return m_comm.broadcast(m_stageGroup, m_stageLeader, data, count);
    }

private:
    // Messages between two ranks are received in the order they were sent, so one slot serves.
    static constexpr std::uint64_t kSlot = 0;

    static std::string tpGroupOf(const JobProgram &program, int rank)
    {
        const int group = program.ranks[std::size_t(rank)].tpGroup;
        return group < 0 ? std::string() : program.groups[std::size_t(group)].key;
    }

    Comm &m_comm;
    GlooTpComm m_tp;
    std::string m_stageGroup;
    int m_stageLeader = 0;
    int m_previous = -1;
    int m_next = -1;
    int m_first = -1;
    int m_last = -1;
    std::string m_previousGroup;
    std::string m_nextGroup;
    std::string m_returnGroup;
};

} // namespace

ServeRole serveRole(const JobProgram &program, int rank)
{
    const Rank &r = program.ranks[std::size_t(rank)];
    return {r.pipeline, r.stage, program.pipelines[std::size_t(r.pipeline)].stages, r.tpDegree,
            r.leader()};
}

std::vector<GroupSpec> serveGroups(const JobProgram &program)
{
    std::vector<GroupSpec> groups;
    for (const Group &g : program.groups)
        if (g.kind == GroupKind::TensorParallel || g.kind == GroupKind::Hop)
            groups.push_back({g.key, g.members});
    for (int p = 0; p < int(program.pipelines.size()); ++p) {
        const int stages = program.pipelines[std::size_t(p)].stages;
        if (stages < 2)
            continue;
        std::vector<int> members{leaderOf(program, p, 0), leaderOf(program, p, stages - 1)};
        std::sort(members.begin(), members.end());
        groups.push_back({returnGroup(p), members});
    }
    return groups;
}

std::unique_ptr<ServeLinks> glooServeLinks(Comm &comm, const JobProgram &program, int rank)
{
    return std::make_unique<GlooServeLinks>(comm, program, rank);
}

} // namespace hetplan::runtime
