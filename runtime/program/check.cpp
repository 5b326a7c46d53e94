// checkProgram: structure first (so the later passes may index freely), then transfer pairing,
// coverage of layers and samples, gradient weights, and last the symbolic run.
#include "runtime/program/check.h"

#include "runtime/program/check_passes.h"
#include "runtime/program/program_text.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace hetplan::runtime {

Error programError(std::string message)
{
    return {ErrorKind::Internal, "program check: " + std::move(message)};
}

std::string rankText(const JobProgram &program, int rank)
{
    if (rank < 0 || rank >= static_cast<int>(program.ranks.size()))
        return "rank #" + std::to_string(rank);
    const Rank &r = program.ranks[size_t(rank)];
    return "rank " + std::to_string(rank) + " (pipeline " + std::to_string(r.pipeline) + ", stage "
           + std::to_string(r.stage) + ", replica " + std::to_string(r.replica) + ", TP "
           + std::to_string(r.tpIndex) + " of " + std::to_string(r.tpDegree) + ", " + r.gpuName
           + ")";
}

namespace {

bool isMember(const Group &group, int rank)
{
    return std::binary_search(group.members.begin(), group.members.end(), rank);
}

class StructureCheck
{
public:
    explicit StructureCheck(const JobProgram &program)
        : m_program(program)
    {}

    Status run() const
    {
        if (m_program.programs.size() != m_program.ranks.size())
            return programError(std::to_string(m_program.programs.size()) + " programs for "
                                + std::to_string(m_program.ranks.size()) + " ranks");
        for (size_t g = 0; g < m_program.groups.size(); ++g)
            if (Status s = group(m_program.groups[g]); !s)
                return s;
        for (int r = 0; r < rankCount(); ++r) {
            if (m_program.ranks[size_t(r)].rank != r)
                return programError("rank " + std::to_string(r) + " is numbered "
                                    + std::to_string(m_program.ranks[size_t(r)].rank));
            for (const Op &op : m_program.programs[size_t(r)])
                if (Status s = uses(r, op); !s)
                    return s;
        }
        return okStatus();
    }

private:
    int rankCount() const { return static_cast<int>(m_program.ranks.size()); }

    Status group(const Group &g) const
    {
        if (g.members.size() < 2)
            return programError("group " + g.key + " has fewer than 2 members");
        for (size_t i = 0; i < g.members.size(); ++i)
            if (g.members[i] < 0 || g.members[i] >= rankCount()
                || (i > 0 && g.members[i] <= g.members[i - 1]))
                return programError("group " + g.key
                                    + " lists members out of range, repeated or unsorted");
        if (g.kind == GroupKind::Hop && g.members.size() != 2)
            return programError("hop group " + g.key + " must have exactly 2 members");
        if (g.kind == GroupKind::TensorParallel) {
            const Rank &first = m_program.ranks[size_t(g.members.front())];
            if (static_cast<int>(g.members.size()) != first.tpDegree)
                return programError("TP group " + g.key + " has " + std::to_string(g.members.size())
                                    + " members for TP degree " + std::to_string(first.tpDegree));
            for (size_t i = 0; i < g.members.size(); ++i) {
                const Rank &r = m_program.ranks[size_t(g.members[i])];
                if (r.tpGroup < 0 || r.pipeline != first.pipeline || r.stage != first.stage
                    || r.replica != first.replica || r.tpIndex != static_cast<int>(i)
                    || &m_program.groups[size_t(r.tpGroup)] != &g)
                    return programError("TP group " + g.key + " does not match "
                                        + rankText(m_program, g.members[i]));
            }
        }
        return okStatus();
    }

    Status inGroup(int rank, int group, GroupKind kind, const Op &op) const
    {
        const std::string what = rankText(m_program, rank) + " '" + opText(m_program, op) + "'";
        if (group < 0 || group >= static_cast<int>(m_program.groups.size()))
            return programError(what + " names no group");
        const Group &g = m_program.groups[size_t(group)];
        if (g.kind != kind)
            return programError(what + " uses group " + g.key + " of the wrong kind");
        if (!isMember(g, rank))
            return programError(what + " uses group " + g.key + ", which it is not a member of");
        return okStatus();
    }

    Status uses(int rank, const Op &op) const
    {
        const Rank &r = m_program.ranks[size_t(rank)];
        if (std::holds_alternative<Forward>(op) || std::holds_alternative<Backward>(op))
            return r.tpDegree > 1 ? inGroup(rank, r.tpGroup, GroupKind::TensorParallel, op)
                                  : okStatus();
        if (const auto *e = std::get_if<Exchange>(&op)) {
            for (const Transfer &t : e->transfers) {
                if (Status s = inGroup(rank, t.group, GroupKind::Hop, op); !s)
                    return s;
                if (t.peer == rank || !isMember(m_program.groups[size_t(t.group)], t.peer))
                    return programError(rankText(m_program, rank) + " '" + opText(m_program, op)
                                        + "': the peer is not the other member of the group");
                if (t.rows.empty())
                    return programError(rankText(m_program, rank) + " '" + opText(m_program, op)
                                        + "' moves no rows");
            }
            return okStatus();
        }
        if (const auto *b = std::get_if<Broadcast>(&op)) {
            if (Status s = inGroup(rank, b->group, GroupKind::TensorParallel, op); !s)
                return s;
            if (!isMember(m_program.groups[size_t(b->group)], b->root))
                return programError(rankText(m_program, rank) + " '" + opText(m_program, op)
                                    + "': the root is not in the group");
            return okStatus();
        }
        if (const auto *g = std::get_if<GradSync>(&op))
            return inGroup(rank, g->group, GroupKind::Gradient, op);
        return okStatus();
    }

    const JobProgram &m_program;
};

} // namespace

Status checkStructure(const JobProgram &program)
{
    return StructureCheck(program).run();
}

Status checkTransfersPair(const JobProgram &program)
{
    // (group, sender, receiver, micro-batch, payload, rows) → sends minus receives
    using Key = std::tuple<int, int, int, int, int, int, int>;
    std::map<Key, int> balance;
    for (int r = 0; r < static_cast<int>(program.programs.size()); ++r)
        for (const Op &op : program.programs[size_t(r)])
            if (const auto *e = std::get_if<Exchange>(&op))
                for (const Transfer &t : e->transfers) {
                    const bool send = t.direction == Direction::Send;
                    const Key key{t.group,      send ? r : t.peer, send ? t.peer : r,
                                  t.microBatch, int(t.payload),    t.rows.begin,
                                  t.rows.end};
                    balance[key] += send ? 1 : -1;
                }
    for (const auto &[key, count] : balance) {
        if (count == 0)
            continue;
        const auto [group, from, to, microBatch, payload, begin, end] = key;
        const std::string what = std::string(payloadName(Payload(payload))) + " of micro-batch "
                                 + std::to_string(microBatch) + " rows " + rowsText({begin, end})
                                 + " via " + program.groups[size_t(group)].key;
        if (count > 0)
            return programError(rankText(program, from) + " sends " + what + " to "
                                + rankText(program, to) + ", which never receives it");
        return programError(rankText(program, to) + " receives " + what + " from "
                            + rankText(program, from) + ", which never sends it");
    }
    return okStatus();
}

Status checkProgram(const JobProgram &program)
{
    for (Status (*pass)(const JobProgram &) :
         {checkStructure, checkTransfersPair, checkCoverage, checkDataflow, checkGradientWeights,
          runSymbolically})
        if (Status s = pass(program); !s)
            return s;
    return okStatus();
}

} // namespace hetplan::runtime
