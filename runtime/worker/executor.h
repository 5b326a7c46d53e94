#pragma once

#include "core/cost/measurement.h"
#include "runtime/comm/comm.h"
#include "runtime/program/program.h"
#include "runtime/worker/backend.h"
#include "runtime/worker/stage_compute.h"

#include <deque>
#include <map>
#include <utility>
#include <vector>

namespace hetplan::runtime {

// Runs one rank's program (runtime/program) on its model shard and its backend's groups (Gloo
// on the CPU, NCCL on a GPU), one training iteration per call, and times where the time goes
// (docs/runtime.md, "Phases", and per rank as core/cost/rank_phases.h defines them):
//   tp_comm  the TP all-reduces inside forward and backward;
//   pp_comm  moving a hop's payload (sends, receives and the TP broadcast of what arrived);
//            each exchange's and broadcast's time also goes to the hops it carries (in or
//            out, from or to the previous or the next stage);
//   dp_comm  the gradient all-reduces, payload only;
//   bubble   waiting for a peer to be ready: every hop exchange, broadcast and gradient sync
//            starts with a one-float handshake among its participants, and its time is the
//            wait (a group's later syncs in an iteration count theirs as dp_comm); where the
//            backend posts the handshakes' receives ahead (Gloo), the last to arrive finds the
//            others' tokens there and waits for nothing;
//   compute  the rest of the iteration's wall time (layers, loss, optimizer).
class Executor
{
public:
    Executor(const JobProgram &program, int rank, Backend &backend, StageCompute &model);

    // The world group every rank joins after the program's groups: iteration barriers and the
    // loss sum. Not part of the program, so its key cannot clash with one ("tp/", "hop/", "dp/").
    static constexpr const char *kWorldGroup = "world";
    static std::vector<GroupSpec> groupsToConnect(const JobProgram &program);

    // Runs one iteration; returns its times and the global mean loss (before the update).
    Result<std::pair<RankIteration, double>> runIteration();

private:
    struct Buffers;
    Status runOp(const Op &op, Buffers &buffers);
    Status forward(const Forward &op, Buffers &buffers);
    Status backward(const Backward &op, Buffers &buffers);
    Status exchange(const Exchange &op, Buffers &buffers);
    Status broadcast(const Broadcast &op, Buffers &buffers);
    Status gradSync(const GradSync &op);
    // What arrives for this rank's rows of a micro-batch, allocated on first use.
    Result<Floats *> receiveBuffer(Buffers &buffers, int microBatch, Payload payload,
                                   const SampleRange &rows);
    // Two floats per transfer of the largest exchange or per member of the largest gradient
    // group: the handshakes' tokens, in backend memory.
    Result<float *> handshakeTokens();
    // The handshake of an exchange: a token each way with the peer of each transfer, on the
    // transfer's handshake slot. Both ways, so that each side learns the other has arrived.
    std::vector<Comm::Transfer> exchangeHandshake(const Exchange &op, float *tokens) const;
    // The handshake of a group's gradient sync where the backend posts ahead (elsewhere a
    // one-float all-reduce): a token each way with every other member, on a slot of its own
    // for each of the group's `earlier` syncs in the iteration.
    std::vector<Comm::Transfer> syncHandshake(int group, int earlier, float *tokens) const;
    // Posts the receiving halves of every handshake of the iteration (Backend::postAhead).
    Status postHandshakesAhead(float *tokens);
    // The hop a transfer with a rank of `peerStage` belongs to.
    double HopPhases::*hopOf(Direction direction, int peerStage) const;
    // Adds the time of the iteration's hop exchanges and broadcasts to its phases.
    void countHops();

    // One hop exchange's or broadcast's time and the hops it carried. A backend may know the
    // time only once it has synchronized (the GPU backend reads its timing events then), so
    // the time is counted after that; a deque keeps each `spentS` where the backend adds to it.
    struct HopTime
    {
        double spentS = 0;
        std::vector<double HopPhases::*> hops;
    };

    const JobProgram &m_program;
    const Rank &m_rank;
    Backend &m_backend;
    StageCompute &m_model;
    Floats m_tokens;
    std::map<int, SampleRange> m_rowsOf; // micro-batch → this rank's rows
    Breakdown m_phases;                  // of the running iteration
    HopPhases m_hops;                    // of the running iteration
    std::deque<HopTime> m_hopTimes;      // of the running iteration
    std::map<int, int> m_synced;         // gradient syncs of each group in this iteration
    double m_lossSum = 0;
};

} // namespace hetplan::runtime
