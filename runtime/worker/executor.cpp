#include "runtime/worker/executor.h"

#include "runtime/worker/backend_tp.h"

#include <algorithm>
#include <chrono>

namespace hetplan::runtime {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

Error missing(std::string_view what, int microBatch)
{
    return {ErrorKind::Internal, "the program uses the " + std::string(what) + " of micro-batch "
                                     + std::to_string(microBatch) + " before this rank has it"};
}

// Gloo slots of one hop message: the handshake and the payload of (micro-batch, payload).
std::uint64_t slotOf(int microBatch, Payload payload, bool handshake)
{
    const std::uint64_t message = std::uint64_t(microBatch) * 2 + (payload == Payload::Gradient);
    return message * 2 + (handshake ? 0 : 1);
}

// The slot of a group's first gradient sync's handshake in an iteration (the next ones follow
// it): above every hop slot, below Gloo's collectives' (an 8-bit prefix in the top byte).
constexpr std::uint64_t kSyncHandshakeSlot = std::uint64_t(1) << 40;

std::vector<Comm::Transfer> receivesOf(std::vector<Comm::Transfer> transfers)
{
    std::erase_if(transfers, [](const Comm::Transfer &t) { return t.send; });
    return transfers;
}

} // namespace

// Activations and gradients of the running iteration, by (micro-batch, payload): what arrived
// for this rank's rows, and what it produced for its neighbours.
struct Executor::Buffers
{
    std::map<std::pair<int, Payload>, Floats> received;
    std::map<std::pair<int, Payload>, Floats> produced;
    std::unique_ptr<TpComm> tp;
};

Executor::Executor(const JobProgram &program, int rank, Backend &backend, StageCompute &model)
    : m_program(program)
    , m_rank(program.ranks[std::size_t(rank)])
    , m_backend(backend)
    , m_model(model)
{
    for (const Op &op : program.programs[std::size_t(rank)])
        if (const auto *f = std::get_if<Forward>(&op))
            m_rowsOf[f->microBatch] = f->rows;
}

std::vector<GroupSpec> Executor::groupsToConnect(const JobProgram &program)
{
    std::vector<GroupSpec> specs;
    for (const Group &g : program.groups)
        specs.push_back({g.key, g.members});
    if (program.ranks.size() > 1) {
        GroupSpec world{kWorldGroup, {}};
        for (const Rank &r : program.ranks)
            world.members.push_back(r.rank);
        specs.push_back(std::move(world));
    }
    return specs;
}

Result<float *> Executor::handshakeTokens()
{
    if (m_tokens.data == nullptr) {
        std::size_t most = 1;
        for (const Op &op : m_program.programs[std::size_t(m_rank.rank)])
            if (const auto *e = std::get_if<Exchange>(&op))
                most = std::max(most, 2 * e->transfers.size());
            else if (const auto *g = std::get_if<GradSync>(&op))
                most = std::max(most, 2 * m_program.groups[std::size_t(g->group)].members.size());
        auto tokens = m_backend.allocate(most);
        if (!tokens)
            return tokens.error();
        m_tokens = std::move(tokens).value();
    }
    return m_tokens.data;
}

std::vector<Comm::Transfer> Executor::exchangeHandshake(const Exchange &op, float *tokens) const
{
    std::vector<Comm::Transfer> handshake;
    for (const Transfer &t : op.transfers) {
        const std::string &group = m_program.groups[std::size_t(t.group)].key;
        const std::uint64_t slot = slotOf(t.microBatch, t.payload, true);
        handshake.push_back({group, t.peer, tokens++, 1, slot, true});
        handshake.push_back({group, t.peer, tokens++, 1, slot, false});
    }
    return handshake;
}

std::vector<Comm::Transfer> Executor::syncHandshake(int group, int earlier, float *tokens) const
{
    const std::uint64_t slot = kSyncHandshakeSlot + std::uint64_t(earlier);
    const Group &g = m_program.groups[std::size_t(group)];
    std::vector<Comm::Transfer> handshake;
    for (int member : g.members)
        if (member != m_rank.rank) {
            handshake.push_back({g.key, member, tokens++, 1, slot, true});
            handshake.push_back({g.key, member, tokens++, 1, slot, false});
        }
    return handshake;
}

Status Executor::postHandshakesAhead(float *tokens)
{
    std::vector<Comm::Transfer> receives;
    std::map<int, int> synced;
    for (const Op &op : m_program.programs[std::size_t(m_rank.rank)]) {
        std::vector<Comm::Transfer> handshake;
        if (const auto *e = std::get_if<Exchange>(&op))
            handshake = exchangeHandshake(*e, tokens);
        else if (const auto *g = std::get_if<GradSync>(&op))
            handshake = syncHandshake(g->group, synced[g->group]++, tokens);
        for (Comm::Transfer &t : receivesOf(std::move(handshake)))
            receives.push_back(std::move(t));
    }
    return m_backend.postAhead(receives);
}

Result<Floats *> Executor::receiveBuffer(Buffers &buffers, int microBatch, Payload payload,
                                         const SampleRange &rows)
{
    Floats &buffer = buffers.received[{microBatch, payload}];
    if (buffer.data == nullptr) {
        auto made = m_backend.allocate(std::size_t(rows.count()) * m_model.activationFloats(1));
        if (!made)
            return made.error();
        buffer = std::move(made).value();
    }
    return &buffer;
}

Result<std::pair<RankIteration, double>> Executor::runIteration()
{
    const bool alone = m_program.ranks.size() == 1;
    float token = 0;
    // Every rank starts the iteration together, so iteration times compare across ranks.
    if (!alone)
        if (Status s = m_backend.allReduceHostSum(kWorldGroup, &token, 1); !s)
            return s.error();

    m_phases = {};
    m_hops = {};
    m_hopTimes.clear();
    m_synced.clear();
    m_lossSum = 0;
    // Made (and zeroed, in the backend's order) before any op, so that every later use of the
    // handshake tokens is ordered after that.
    auto tokens = handshakeTokens();
    if (!tokens)
        return tokens.error();
    if (m_backend.postsAhead())
        if (Status s = postHandshakesAhead(*tokens); !s)
            return s.error();
    Buffers buffers;
    if (m_rank.tpGroup >= 0)
        buffers.tp = std::make_unique<BackendTpComm>(
            m_backend, m_program.groups[std::size_t(m_rank.tpGroup)].key, m_phases.tpCommS);
    else
        buffers.tp = std::make_unique<SoloTpComm>();

    const auto start = Clock::now();
    for (const Op &op : m_program.programs[std::size_t(m_rank.rank)])
        if (Status s = runOp(op, buffers); !s)
            return s.error();
    if (Status s = m_backend.synchronize(); !s)
        return s.error();
    if (m_backend.postedAhead() != 0)
        return Error{ErrorKind::Internal, std::to_string(m_backend.postedAhead())
                                              + " handshake receives posted ahead were not used"};
    countHops();
    RankIteration iteration;
    iteration.wallS = secondsSince(start);
    iteration.breakdown = m_phases;
    iteration.hops = m_hops;
    const double communicationS
        = m_phases.tpCommS + m_phases.ppCommS + m_phases.dpCommS + m_phases.bubbleS;
    iteration.breakdown.computeS = std::max(0.0, iteration.wallS - communicationS);

    float loss = float(m_lossSum);
    if (!alone)
        if (Status s = m_backend.allReduceHostSum(kWorldGroup, &loss, 1); !s)
            return s.error();
    return std::pair{iteration, double(loss)};
}

Status Executor::runOp(const Op &op, Buffers &buffers)
{
    return std::visit(
        [&](const auto &o) -> Status {
            using T = std::decay_t<decltype(o)>;
            if constexpr (std::is_same_v<T, Forward>)
                return forward(o, buffers);
            else if constexpr (std::is_same_v<T, Backward>)
                return backward(o, buffers);
            else if constexpr (std::is_same_v<T, Exchange>)
                return exchange(o, buffers);
            else if constexpr (std::is_same_v<T, Broadcast>)
                return broadcast(o, buffers);
            else if constexpr (std::is_same_v<T, GradSync>)
                return gradSync(o);
            else
                return m_model.optimizerStep();
        },
        op);
}

Status Executor::forward(const Forward &op, Buffers &buffers)
{
    Floats input;
    if (!m_rank.embedding) {
        auto it = buffers.received.find({op.microBatch, Payload::Activation});
        if (it == buffers.received.end())
            return missing("input activation", op.microBatch);
        input = std::move(it->second);
        buffers.received.erase(it);
    }
    Floats output;
    auto loss = m_model.forward(op.microBatch, op.rows.begin, op.rows.count(), input.view(),
                                *buffers.tp, output);
    if (!loss)
        return loss.error();
    if (m_rank.head && m_rank.tpIndex == 0)
        m_lossSum += *loss; // every TP rank of the head computes it; count it once
    if (!m_rank.head)
        buffers.produced[{op.microBatch, Payload::Activation}] = std::move(output);
    return okStatus();
}

Status Executor::backward(const Backward &op, Buffers &buffers)
{
    Floats outputGrad;
    if (!m_rank.head) {
        auto it = buffers.received.find({op.microBatch, Payload::Gradient});
        if (it == buffers.received.end())
            return missing("output gradient", op.microBatch);
        outputGrad = std::move(it->second);
        buffers.received.erase(it);
    }
    auto inputGrad = m_model.backward(op.microBatch, outputGrad.view(), *buffers.tp);
    if (!inputGrad)
        return inputGrad.error();
    buffers.produced.erase({op.microBatch, Payload::Activation});
    if (!m_rank.embedding)
        buffers.produced[{op.microBatch, Payload::Gradient}] = std::move(inputGrad).value();
    return okStatus();
}

Status Executor::exchange(const Exchange &op, Buffers &buffers)
{
    const std::size_t perRow = m_model.activationFloats(1);
    auto tokens = handshakeTokens();
    if (!tokens)
        return tokens.error();
    std::vector<Comm::Transfer> payloads;
    for (const Transfer &t : op.transfers) {
        const bool send = t.direction == Direction::Send;
        const auto rows = m_rowsOf.find(t.microBatch);
        if (rows == m_rowsOf.end())
            return missing("rows", t.microBatch);
        const std::size_t offset = std::size_t(t.rows.begin - rows->second.begin) * perRow;
        const std::size_t count = std::size_t(t.rows.count()) * perRow;
        Floats *buffer = nullptr;
        if (send) {
            auto it = buffers.produced.find({t.microBatch, t.payload});
            if (it == buffers.produced.end())
                return missing(t.payload == Payload::Activation ? "output" : "input gradient",
                               t.microBatch);
            buffer = &it->second;
        } else {
            auto held = receiveBuffer(buffers, t.microBatch, t.payload, rows->second);
            if (!held)
                return held.error();
            buffer = *held;
        }
        if (offset + count > buffer->count)
            return Error{ErrorKind::Internal, "a transfer of micro-batch "
                                                  + std::to_string(t.microBatch)
                                                  + " covers rows this rank does not hold"};
        const std::string &group = m_program.groups[std::size_t(t.group)].key;
        payloads.push_back({group, t.peer, buffer->data + offset, count,
                            slotOf(t.microBatch, t.payload, false), send});
    }
    if (Status s
        = m_backend.exchange(exchangeHandshake(op, *tokens), m_phases.bubbleS, Traffic::Handshake);
        !s)
        return s;
    // Every hop the exchange carries takes its whole time: its transfers progress together.
    HopTime &time = m_hopTimes.emplace_back();
    for (const Transfer &t : op.transfers) {
        double HopPhases::*hop = hopOf(t.direction, m_program.ranks[std::size_t(t.peer)].stage);
        if (std::find(time.hops.begin(), time.hops.end(), hop) == time.hops.end())
            time.hops.push_back(hop);
    }
    return m_backend.exchange(payloads, time.spentS);
}

double HopPhases::*Executor::hopOf(Direction direction, int peerStage) const
{
    const bool prev = peerStage < m_rank.stage;
    if (direction == Direction::Recv)
        return prev ? &HopPhases::inPrevS : &HopPhases::inNextS;
    return prev ? &HopPhases::outPrevS : &HopPhases::outNextS;
}

void Executor::countHops()
{
    for (const HopTime &time : m_hopTimes) {
        m_phases.ppCommS += time.spentS;
        for (double HopPhases::*hop : time.hops)
            m_hops.*hop += time.spentS;
    }
    m_hopTimes.clear();
}

Status Executor::broadcast(const Broadcast &op, Buffers &buffers)
{
    const std::size_t perRow = m_model.activationFloats(1);
    const auto rows = m_rowsOf.find(op.microBatch);
    if (rows == m_rowsOf.end())
        return missing("rows", op.microBatch);
    auto held = receiveBuffer(buffers, op.microBatch, op.payload, rows->second);
    if (!held)
        return held.error();
    Floats &buffer = **held;
    const std::size_t offset = std::size_t(op.rows.begin - rows->second.begin) * perRow;
    const std::size_t count = std::size_t(op.rows.count()) * perRow;
    if (offset + count > buffer.count)
        return Error{ErrorKind::Internal, "a broadcast of micro-batch "
                                              + std::to_string(op.microBatch)
                                              + " covers rows this rank does not hold"};
    const std::string &group = m_program.groups[std::size_t(op.group)].key;
    auto token = handshakeTokens();
    if (!token)
        return token.error();
    if (Status s
        = m_backend.broadcast(group, op.root, *token, 1, m_phases.bubbleS, Traffic::Handshake);
        !s)
        return s;
    // What arrives: activations from the previous stage, gradients from the next.
    HopTime &time = m_hopTimes.emplace_back();
    time.hops = {op.payload == Payload::Activation ? &HopPhases::inPrevS : &HopPhases::inNextS};
    return m_backend.broadcast(group, op.root, buffer.data + offset, count, time.spentS);
}

} // namespace hetplan::runtime
