// Each rank's ops in an order its data allows. The symbolic run proves the programs finish;
// this pass proves they compute the right thing in between: a forward only after the rows of
// its input arrived (and were broadcast to the TP group), a send only of what was computed,
// each micro-batch forwarded and backwarded once, gradient sync after the last backward.
#include "runtime/program/check_passes.h"
#include "runtime/program/program_text.h"

#include <algorithm>

namespace hetplan::runtime {

namespace {

class RankFlow
{
public:
    RankFlow(const JobProgram &program, int rank)
        : m_program(program)
        , m_rank(program.ranks[size_t(rank)])
        , m_samples(program.pipelines[size_t(m_rank.pipeline)])
        , m_count(size_t(m_samples.microBatches))
    {
        for (std::vector<char> *flags :
             {&m_forwarded, &m_backwarded, &m_activationShared, &m_gradientShared})
            flags->assign(m_count, 0);
        m_activationPieces.resize(m_count);
        m_gradientPieces.resize(m_count);
    }

    Status run()
    {
        const std::vector<Op> &ops = m_program.programs[size_t(m_rank.rank)];
        for (size_t i = 0; i < ops.size(); ++i) {
            m_op = &ops[i];
            if (std::holds_alternative<OptimizerStep>(ops[i]) && i + 1 != ops.size())
                return fail("the optimizer step must be the last op");
            if (Status s = step(ops[i]); !s)
                return s;
        }
        if (ops.empty() || !std::holds_alternative<OptimizerStep>(ops.back()))
            return programError(rankText(m_program, m_rank.rank)
                                + " never takes its optimizer step");
        return okStatus();
    }

private:
    Status fail(const std::string &why) const
    {
        return opError(m_program, m_rank.rank, *m_op, why);
    }

    SampleRange rows(int m) const
    {
        const int begin = m_samples.rows.begin + m * m_samples.microBatch + m_rank.rowOffset;
        return {begin, begin + m_rank.rowCount};
    }
    bool knownMicroBatch(int m) const { return m >= 0 && m < m_samples.microBatches; }
    bool allBackwarded() const
    {
        return std::all_of(m_backwarded.begin(), m_backwarded.end(), [](char b) { return b; });
    }
    bool inside(SampleRange piece, int m) const
    {
        return piece.begin >= rows(m).begin && piece.end <= rows(m).end && !piece.empty();
    }

    // Whether the leader has received exactly the rows of micro-batch m.
    bool complete(std::vector<SampleRange> pieces, int m) const
    {
        std::sort(pieces.begin(), pieces.end(),
                  [](SampleRange a, SampleRange b) { return a.begin < b.begin; });
        int next = rows(m).begin;
        for (SampleRange piece : pieces) {
            if (piece.begin != next)
                return false;
            next = piece.end;
        }
        return next == rows(m).end;
    }

    // The input of micro-batch m has arrived from the neighbour stage and reached every TP rank.
    bool inputReady(int m, Payload payload) const
    {
        const bool activation = payload == Payload::Activation;
        if (activation ? m_rank.embedding : m_rank.head)
            return true; // made from the data on the rank itself
        const auto &pieces = activation ? m_activationPieces : m_gradientPieces;
        const auto &shared = activation ? m_activationShared : m_gradientShared;
        return (!m_rank.leader() || complete(pieces[size_t(m)], m))
               && (m_rank.tpDegree == 1 || shared[size_t(m)]);
    }

    Status compute(int m, SampleRange r, bool forward)
    {
        if (!knownMicroBatch(m) || r != rows(m))
            return fail("not this rank's rows of a micro-batch of its pipeline");
        auto &done = forward ? m_forwarded : m_backwarded;
        if (done[size_t(m)])
            return fail("computed twice");
        if (!forward && !m_forwarded[size_t(m)])
            return fail("backward before its forward");
        if (!inputReady(m, forward ? Payload::Activation : Payload::Gradient))
            return fail("its input has not arrived");
        done[size_t(m)] = 1;
        return okStatus();
    }

    Status send(const Transfer &t)
    {
        const bool activation = t.payload == Payload::Activation;
        if (!knownMicroBatch(t.microBatch) || !inside(t.rows, t.microBatch))
            return fail("sends rows this rank does not compute");
        if (activation ? m_rank.head : m_rank.embedding)
            return fail("sends past the end of the pipeline");
        if (!(activation ? m_forwarded : m_backwarded)[size_t(t.microBatch)])
            return fail("sends what it has not computed yet");
        return okStatus();
    }

    Status receive(const Transfer &t)
    {
        const bool activation = t.payload == Payload::Activation;
        if (!knownMicroBatch(t.microBatch) || !inside(t.rows, t.microBatch))
            return fail("receives rows this rank does not compute");
        if (activation ? m_rank.embedding : m_rank.head)
            return fail("receives past the end of the pipeline");
        if ((activation ? m_forwarded : m_backwarded)[size_t(t.microBatch)])
            return fail("receives the input of a computation already done");
        (activation ? m_activationPieces : m_gradientPieces)[size_t(t.microBatch)].push_back(
            t.rows);
        return okStatus();
    }

    Status step(const Op &op)
    {
        if (const auto *f = std::get_if<Forward>(&op))
            return compute(f->microBatch, f->rows, true);
        if (const auto *b = std::get_if<Backward>(&op))
            return compute(b->microBatch, b->rows, false);
        if (const auto *e = std::get_if<Exchange>(&op)) {
            // Posted together: no send may carry what a receive of the same exchange brings.
            for (const Transfer &t : e->transfers)
                if (Status s = t.direction == Direction::Send ? send(t) : okStatus(); !s)
                    return s;
            for (const Transfer &t : e->transfers)
                if (Status s = t.direction == Direction::Recv ? receive(t) : okStatus(); !s)
                    return s;
            return okStatus();
        }
        if (const auto *c = std::get_if<Broadcast>(&op)) {
            if (c->root != m_rank.rank - m_rank.tpIndex)
                return fail("the root is not the TP leader");
            if (!knownMicroBatch(c->microBatch) || c->rows != rows(c->microBatch))
                return fail("not this rank's rows of a micro-batch");
            const bool activation = c->payload == Payload::Activation;
            const auto &pieces = activation ? m_activationPieces : m_gradientPieces;
            if (m_rank.leader() && !complete(pieces[size_t(c->microBatch)], c->microBatch))
                return fail("the leader broadcasts rows it has not received");
            (activation ? m_activationShared : m_gradientShared)[size_t(c->microBatch)] = 1;
            return okStatus();
        }
        if (std::holds_alternative<GradSync>(op) || std::holds_alternative<OptimizerStep>(op))
            if (!allBackwarded())
                return fail("before the last backward of the iteration");
        return okStatus();
    }

    const JobProgram &m_program;
    const Rank &m_rank;
    const PipelineSamples &m_samples;
    size_t m_count;
    const Op *m_op = nullptr;
    std::vector<char> m_forwarded, m_backwarded, m_activationShared, m_gradientShared;
    std::vector<std::vector<SampleRange>> m_activationPieces, m_gradientPieces;
};

} // namespace

Status checkDataflow(const JobProgram &program)
{
    for (int r = 0; r < static_cast<int>(program.ranks.size()); ++r)
        if (Status s = RankFlow(program, r).run(); !s)
            return s;
    return okStatus();
}

} // namespace hetplan::runtime
