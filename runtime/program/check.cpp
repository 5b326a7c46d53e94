// checkProgram: structure first (so the later passes may index freely), then transfer pairing,
// coverage of layers and samples, gradient weights, and last the symbolic run.
#include "runtime/program/check.h"

#include "runtime/program/check_passes.h"
#include "runtime/program/program_text.h"

#include <algorithm>

namespace hetplan::runtime {

Error programError(std::string message)
{
    return {ErrorKind::Internal, "program check: " + std::move(message)};
}

Error opError(const JobProgram &program, int rank, const Op &op, const std::string &why)
{
    return programError(rankText(program, rank) + " '" + opText(program, op) + "': " + why);
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
        for (const Group &spec : m_program.groups)
            if (Status s = group(spec); !s)
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
        if (group < 0 || group >= static_cast<int>(m_program.groups.size()))
            return opError(m_program, rank, op, "names no group");
        const Group &g = m_program.groups[size_t(group)];
        if (g.kind != kind)
            return opError(m_program, rank, op, "uses group " + g.key + " of the wrong kind");
        if (!isMember(g, rank))
            return opError(m_program, rank, op,
                           "uses group " + g.key + ", which it is not a member of");
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
                    return opError(m_program, rank, op,
                                   "the peer is not the other member of the group");
                if (t.rows.empty())
                    return opError(m_program, rank, op, "moves no rows");
            }
            return okStatus();
        }
        if (const auto *b = std::get_if<Broadcast>(&op)) {
            if (Status s = inGroup(rank, b->group, GroupKind::TensorParallel, op); !s)
                return s;
            if (!isMember(m_program.groups[size_t(b->group)], b->root))
                return opError(m_program, rank, op, "the root is not in the group");
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

// Per hop group, the sends and the receives sorted the same way must be the same list.
Status checkTransfersPair(const JobProgram &program)
{
    struct Message
    {
        int from, to, microBatch, payload, begin, end;
        auto operator<=>(const Message &) const = default;
    };
    std::vector<std::vector<Message>> sends(program.groups.size());
    std::vector<std::vector<Message>> recvs(program.groups.size());
    for (int r = 0; r < static_cast<int>(program.programs.size()); ++r)
        for (const Op &op : program.programs[size_t(r)])
            if (const auto *e = std::get_if<Exchange>(&op))
                for (const Transfer &t : e->transfers) {
                    const bool send = t.direction == Direction::Send;
                    (send ? sends : recvs)[size_t(t.group)].push_back(
                        {send ? r : t.peer, send ? t.peer : r, t.microBatch, int(t.payload),
                         t.rows.begin, t.rows.end});
                }
    for (size_t g = 0; g < program.groups.size(); ++g) {
        std::sort(sends[g].begin(), sends[g].end());
        std::sort(recvs[g].begin(), recvs[g].end());
        const auto [s, r]
            = std::mismatch(sends[g].begin(), sends[g].end(), recvs[g].begin(), recvs[g].end());
        if (s == sends[g].end() && r == recvs[g].end())
            continue;
        // The smaller of the two first differences is the one without its counterpart.
        const bool unreceived = r == recvs[g].end() || (s != sends[g].end() && *s < *r);
        const Message &m = unreceived ? *s : *r;
        const std::string what = std::string(payloadName(Payload(m.payload))) + " of micro-batch "
                                 + std::to_string(m.microBatch) + " rows "
                                 + rowsText({m.begin, m.end}) + " via " + program.groups[g].key;
        if (unreceived)
            return programError(rankText(program, m.from) + " sends " + what + " to "
                                + rankText(program, m.to) + ", which never receives it");
        return programError(rankText(program, m.to) + " receives " + what + " from "
                            + rankText(program, m.from) + ", which never sends it");
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
