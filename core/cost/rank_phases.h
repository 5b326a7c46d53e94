#pragma once

// One rank's phases of a training iteration: the one definition the prediction and the
// runtime's measurement share (docs/runtime.md, "Phases per rank"), so that each measured row
// has a predicted row that means the same thing.

#include "core/model/backend_kind.h"
#include "core/plan/estimate.h"

#include <cstddef>
#include <span>
#include <vector>

namespace hetplan {

struct Plan;
struct Evaluation;

// A rank's pipeline hops, per neighbouring stage and direction, payload only. `in` is what
// arrives for the rank (with the TP broadcast of it inside the rank's group), `out` what it
// sends: activations come in from the previous stage and go out to the next one, gradients
// the other way. Each counts the time of every exchange that carries it, so the in and out of
// one fused exchange (1F1B's "send forward, receive backward") overlap.
struct HopPhases
{
    double inPrevS = 0;  // activations from the previous stage
    double outPrevS = 0; // gradients to the previous stage
    double inNextS = 0;  // gradients from the next stage
    double outNextS = 0; // activations to the next stage

    bool operator==(const HopPhases &) const = default;
};

struct RankPhases
{
    int rank = 0;
    int pipeline = 0;
    int stage = 0;
    int tpIndex = 0;
    double wallS = 0; // the iteration's start to the rank's last operation
    // Adds up to wallS. pp_comm is the rank's time in exchanges and broadcasts of hops, a fused
    // exchange once; bubble the time blocked waiting for a peer to be ready.
    Breakdown breakdown;
    HopPhases hops;
};

// How long a send holds the rank that posts it (docs/runtime.md, "Phases per rank").
enum class SendsReturn {
    OnArrival, // when its transfer ends: NCCL's send moves the data through buffers the
               // receiver frees, step by step
    OnHandOff, // once the payload is in the socket's send buffer, which Gloo sizes to the
               // message: the transfer goes on behind the rank's next work
};

constexpr SendsReturn sendsReturnOf(BackendKind backend)
{
    return backend == BackendKind::Gloo ? SendsReturn::OnHandOff : SendsReturn::OnArrival;
}

// One iteration's exchanges of a rank: its hops, each the time of every exchange that carries
// it, and pp_comm, each exchange once.
struct RankExchanges
{
    HopPhases hops;
    double ppCommS = 0;
};

// The exchanges of a 1F1B stage `stage` of `stageCount` over `microBatches` micro-batches, given
// each hop's time per micro-batch (0: the rank has no such hop): the schedule fuses "send
// forward, receive backward" and "send backward, receive forward" of neighbouring micro-batches
// into one exchange whose two directions run at once (docs/runtime-program.md), so such an
// exchange takes the longer of the two as `sends` holds the rank; the warm-up's and cool-down's
// transfers go alone.
RankExchanges scheduleExchanges(const HopPhases &perMicroBatch, int stage, int stageCount,
                                int microBatches, SendsReturn sends);

// The prediction's phases of the ranks whose rank, pipeline, stage and tpIndex are given, from
// `evaluation` of `plan`: compute and TP of its stage's micro-batches, each hop as the cost
// model prices that direction (sends on the TP leader only; a rank of a stage with several DP
// replicas facing one carries its own rows, over a link they share: halfway between its
// transfer alone and the whole hop), the hop rows and pp_comm as scheduleExchanges, DP as
// its stage's, and the bubble from the 1F1B schedule (core/sim): the rank's idle time before
// its last operation less the time its receives take, plus the wait for the last of the stages
// it synchronises gradients with to reach the sync (their ends less their optimizer steps). False
// (nothing filled) when a rank is not in the plan.
bool predictRankPhases(const Plan &plan, const Evaluation &evaluation, std::span<RankPhases> ranks,
                       SendsReturn sends = SendsReturn::OnArrival);

// Every rank of `plan` with its predicted phases, in rank order: by pipeline, stage, DP replica
// and TP index (docs/runtime-program.md). Empty when `evaluation` is not of `plan`.
std::vector<RankPhases> planRankPhases(const Plan &plan, const Evaluation &evaluation,
                                       SendsReturn sends = SendsReturn::OnArrival);

// The rank that ends the iteration: the largest wall time, the first such in rank order. The
// run's breakdown, predicted and measured, is this rank's. `ranks` must not be empty.
std::size_t endingRank(std::span<const RankPhases> ranks);

} // namespace hetplan
