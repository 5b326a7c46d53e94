// The symbolic interpreter of checkProgram: every rank executes its ops in order; a transfer
// completes only when its peer has posted the matching transfer (unbuffered rendezvous, the
// worst case of NCCL and Gloo), a collective only when every member of its group stands at the
// same collective (TP all-reduces make Forward and Backward collectives of the TP group). A
// state where some rank has ops left and none can move is a deadlock.
#include "runtime/program/check_passes.h"
#include "runtime/program/program_text.h"

#include <algorithm>
#include <optional>

namespace hetplan::runtime {

namespace {

// What a rank waits for at a collective: the group and what all members must agree on.
struct Collective
{
    int group = -1;
    int kind = 0; // Op's variant index
    int microBatch = -1;
    SampleRange rows;
    int root = -1;
    int layerBegin = 0, layerEnd = 0, slice = 0;
    ParamSet params = ParamSet::TpSlice;

    bool operator==(const Collective &) const = default;
};

class Interpreter
{
public:
    explicit Interpreter(const JobProgram &program)
        : m_program(program)
        , m_pc(program.ranks.size(), 0)
        , m_done(program.ranks.size())
        , m_queued(program.ranks.size(), 0)
    {
        for (int r = 0; r < rankCount(); ++r)
            resetDone(r);
    }

    // Runs each rank as far as it goes; a rank that blocks waits until a peer's move wakes it
    // (a matched transfer, a completed collective), so the work is linear in the ops.
    Status run()
    {
        for (int r = 0; r < rankCount(); ++r)
            wake(r);
        while (!m_ready.empty()) {
            const int r = m_ready.back();
            m_ready.pop_back();
            m_queued[size_t(r)] = 0;
            while (!finished(r)) {
                Result<bool> step = tryStep(r);
                if (!step)
                    return step.error();
                if (!*step)
                    break;
            }
        }
        return stuckRanks();
    }

private:
    void wake(int r)
    {
        if (!m_queued[size_t(r)]) {
            m_queued[size_t(r)] = 1;
            m_ready.push_back(r);
        }
    }

    int rankCount() const { return static_cast<int>(m_program.ranks.size()); }
    bool finished(int r) const { return m_pc[size_t(r)] >= opCount(r); }
    int opCount(int r) const { return static_cast<int>(m_program.programs[size_t(r)].size()); }
    const Op &current(int r) const
    {
        return m_program.programs[size_t(r)][size_t(m_pc[size_t(r)])];
    }

    void advance(int r)
    {
        ++m_pc[size_t(r)];
        resetDone(r);
    }

    void resetDone(int r)
    {
        m_done[size_t(r)].clear();
        if (!finished(r))
            if (const auto *e = std::get_if<Exchange>(&current(r)))
                m_done[size_t(r)].assign(e->transfers.size(), 0);
    }

    std::optional<Collective> collective(int r) const
    {
        const Op &op = current(r);
        const int kind = static_cast<int>(op.index());
        const int tpGroup = m_program.ranks[size_t(r)].tpGroup;
        if (const auto *f = std::get_if<Forward>(&op); f && tpGroup >= 0)
            return Collective{tpGroup, kind, f->microBatch, f->rows};
        if (const auto *b = std::get_if<Backward>(&op); b && tpGroup >= 0)
            return Collective{tpGroup, kind, b->microBatch, b->rows};
        if (const auto *c = std::get_if<Broadcast>(&op))
            return Collective{c->group, kind, c->microBatch, c->rows, c->root};
        if (const auto *g = std::get_if<GradSync>(&op))
            return Collective{g->group,      kind,        -1,       {},       -1,
                              g->layerBegin, g->layerEnd, g->slice, g->params};
        return std::nullopt;
    }

    // Whether rank r moved; an error when what the ranks do cannot be paired.
    Result<bool> tryStep(int r)
    {
        if (const auto *e = std::get_if<Exchange>(&current(r)))
            return exchangeStep(r, *e);
        const std::optional<Collective> mine = collective(r);
        if (!mine) { // local work
            advance(r);
            return true;
        }
        const std::vector<int> &members = m_program.groups[size_t(mine->group)].members;
        for (int m : members) {
            if (finished(m))
                return false; // reported as stuck
            const std::optional<Collective> theirs = collective(m);
            if (!theirs || theirs->group != mine->group)
                return false;
            if (!(*theirs == *mine))
                return programError(
                    rankText(m_program, r) + " runs '" + opText(m_program, current(r)) + "' while "
                    + rankText(m_program, m) + " runs '" + opText(m_program, current(m))
                    + "' in the same group: the collectives do not match");
        }
        for (int m : members) {
            advance(m);
            wake(m);
        }
        return true;
    }

    Result<bool> exchangeStep(int r, const Exchange &mine)
    {
        bool moved = false;
        for (size_t i = 0; i < mine.transfers.size(); ++i) {
            if (m_done[size_t(r)][i])
                continue;
            const Transfer &t = mine.transfers[i];
            if (finished(t.peer))
                continue;
            const auto *theirs = std::get_if<Exchange>(&current(t.peer));
            if (!theirs)
                continue;
            std::optional<size_t> sameWay; // a pending complement of another shape
            for (size_t j = 0; j < theirs->transfers.size(); ++j) {
                const Transfer &u = theirs->transfers[j];
                if (m_done[size_t(t.peer)][j] || u.peer != r || u.group != t.group
                    || u.direction == t.direction)
                    continue;
                if (u.microBatch == t.microBatch && u.payload == t.payload && u.rows == t.rows) {
                    m_done[size_t(r)][i] = 1;
                    m_done[size_t(t.peer)][j] = 1;
                    wake(t.peer);
                    moved = true;
                    sameWay.reset();
                    break;
                }
                sameWay = j;
            }
            if (sameWay)
                return programError(
                    rankText(m_program, r) + " posts '" + opText(m_program, current(r)) + "' while "
                    + rankText(m_program, t.peer) + " posts '" + opText(m_program, current(t.peer))
                    + "': the transfers between them do not match");
        }
        if (std::all_of(m_done[size_t(r)].begin(), m_done[size_t(r)].end(),
                        [](char d) { return d != 0; })) {
            advance(r);
            moved = true;
        }
        return moved;
    }

    Status stuckRanks() const
    {
        std::string text;
        int stuck = 0;
        for (int r = 0; r < rankCount(); ++r) {
            if (finished(r))
                continue;
            if (++stuck <= 8)
                text += (stuck > 1 ? "; " : "") + rankText(m_program, r) + " at op "
                        + std::to_string(m_pc[size_t(r)]) + " '" + opText(m_program, current(r))
                        + "'";
        }
        if (stuck == 0)
            return okStatus();
        if (stuck > 8)
            text += "; and " + std::to_string(stuck - 8) + " more ranks";
        return programError("deadlock: " + std::to_string(stuck)
                            + " ranks cannot continue: " + text);
    }

    const JobProgram &m_program;
    std::vector<int> m_pc;
    std::vector<std::vector<char>> m_done; // per rank: transfers of its current Exchange done
    std::vector<int> m_ready;              // ranks that may move
    std::vector<char> m_queued;            // per rank: in m_ready
};

} // namespace

Status runSymbolically(const JobProgram &program)
{
    Interpreter interpreter(program);
    return interpreter.run();
}

} // namespace hetplan::runtime
