#pragma once

// A training plan compiled into one program per rank (docs/runtime-program.md): the ranks, the
// communication groups every rank creates in the same global order, and per rank the list of
// operations of one training iteration. Plain data: compileProgram (compile.h) builds it,
// checkProgram (check.h) proves it runs to completion, an executor runs it.

#include "core/plan/plan.h"

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace hetplan::runtime {

// Sequences (sample rows) of the global batch, half-open [begin, end). The global batch is one
// index space [0, globalBatch): pipeline p takes a contiguous range (pipelines in plan order),
// its micro-batch m is the m-th contiguous sub-range of `microBatch` rows, and replica r of a
// dp > 1 stage takes the r-th contiguous part of each micro-batch, of `dpSplit[r]` rows.
struct SampleRange
{
    int begin = 0;
    int end = 0;

    int count() const { return end - begin; }
    bool empty() const { return end <= begin; }
    bool operator==(const SampleRange &) const = default;
};

// One process, bound to one GPU of the plan. Ranks are numbered by pipeline, then stage, then
// DP replica inside the stage, then TP index, so a stage replica's TP group is consecutive and
// its leader (TP index 0, HexiScale §3.2) comes first.
struct Rank
{
    int rank = 0;
    int gpu = 0;         // flat Topology index
    std::string gpuName; // "A:0"
    std::string machine; // the machine's name in the cluster file
    std::string host;    // the machine's launch host; may be empty (local)
    int pipeline = 0;
    int stage = 0;
    int replica = 0; // DP replica inside the stage, 0 when dp = 1
    int tpIndex = 0; // this rank's shard of the stage's TP-split weights
    int tpDegree = 1;
    int layerBegin = 0; // half-open [layerBegin, layerEnd) of transformer layers
    int layerEnd = 0;
    bool embedding = false; // holds the token embedding (first stage of its pipeline)
    bool head = false;      // holds the final norm, output head and loss (last stage)
    int tpGroup = -1;       // index into JobProgram::groups; -1 when tpDegree = 1
    // The rows of every micro-batch this rank computes, as an offset and count inside the
    // micro-batch (the replica's dp_split share).
    int rowOffset = 0;
    int rowCount = 0;

    bool leader() const { return tpIndex == 0; }

    bool operator==(const Rank &) const = default;
};

enum class GroupKind {
    TensorParallel, // one stage replica's TP ranks: all-reduces inside Forward/Backward, and the
                    // broadcast of what its leader received (HexiScale §3.2)
    Hop,            // two leaders of consecutive stages: activations forward, gradients back
    Gradient,       // data-parallel gradient all-reduce among the holders of a run of layers
};

// A communicator. Every rank creates all groups it belongs to in the order of
// JobProgram::groups. Groups of one member are never created: they would carry nothing.
struct Group
{
    // Stable across compilations of the same plan, unique in a job:
    //   tp/p0/s1/r0                TP group of pipeline 0, stage 1, replica 0
    //   hop/p0/s1-s2/r0-r1         leader of stage 1 replica 0 ↔ leader of stage 2 replica 1
    //   dp/l3-8/slice1of4          gradient slice 1 of 4 of the TP-split weights of layers 3..8
    //   dp/l3-8/replicated         the replicated weights (norms; embedding or head with them)
    //   dp/l3-8/all                both, when no holder of layers 3..8 uses TP
    std::string key;
    GroupKind kind = GroupKind::TensorParallel;
    std::vector<int> members; // ranks, ascending; a member's index here is its rank in the group
    // What the plan recorded for this group's traffic between machines (core/plan/plan.h);
    // absent = the backend's default.
    std::optional<Transport> transport;

    bool operator==(const Group &) const = default;
};

enum class Payload {
    Activation, // forward: the output of the sending stage for the rows, [rows × seq × hidden]
    Gradient,   // backward: the loss gradient w.r.t. that activation, same shape
};

// Forward of the rank's layers (and embedding / head + loss where it holds them) for its rows of
// a micro-batch. TP all-reduces inside happen in the rank's TP group, in the same order on every
// member. Keeps what Backward of the same micro-batch needs.
struct Forward
{
    int microBatch = 0;
    SampleRange rows;

    bool operator==(const Forward &) const = default;
};

// Backward of the same, accumulating parameter gradients over the iteration's micro-batches.
struct Backward
{
    int microBatch = 0;
    SampleRange rows;

    bool operator==(const Backward &) const = default;
};

enum class Direction { Send, Recv };

// One point-to-point message of `rows` of a micro-batch's activation or gradient, over a Hop
// group, to or from `peer` (a global rank).
struct Transfer
{
    Direction direction = Direction::Send;
    int group = 0;
    int peer = 0;
    int microBatch = 0;
    SampleRange rows;
    Payload payload = Payload::Activation;

    bool operator==(const Transfer &) const = default;
};

// A set of transfers that must progress together: the executor posts all of them, then waits
// for all (NCCL group / Gloo unbound buffers). 1F1B pairs "send forward, receive backward" this
// way; done one after the other with blocking transfers, neighbouring stages would deadlock.
struct Exchange
{
    std::vector<Transfer> transfers;

    bool operator==(const Exchange &) const = default;
};

// The TP leader's copy of `rows` (just received) to every member of the TP group
// (HexiScale §3.2). Every member executes it; `root` is a global rank.
struct Broadcast
{
    int group = 0;
    int root = 0;
    int microBatch = 0;
    SampleRange rows;
    Payload payload = Payload::Activation;

    bool operator==(const Broadcast &) const = default;
};

// Which gradients a GradSync all-reduces.
enum class ParamSet {
    // Slice `slice` of `sliceCount` of every TP-split weight of layers [layerBegin, layerEnd):
    // the part a TP shard of degree sliceCount with index `slice` would hold. A rank of TP
    // degree t holds slices [tpIndex·sliceCount/t, (tpIndex+1)·sliceCount/t).
    TpSlice,
    // The weights every TP rank holds whole: the norms of layers [layerBegin, layerEnd), plus
    // the embedding and/or the head (+ final norm) where `embedding` / `head` say so.
    Replicated,
};

// One gradient all-reduce (SUM) in a Gradient group after the iteration's last backward. Before
// the sum the rank multiplies its gradient by `weight`, so the sum over the group equals the
// gradient of the mean loss over the global batch:
//   weight = batchShare / tpCopies
// for a gradient that is the mean over the rank's own samples. A model that already scales its
// loss gradient by 1 / (global batch × sequence length) has the share applied and multiplies
// by 1 / tpCopies only.
struct GradSync
{
    int group = 0;
    ParamSet params = ParamSet::TpSlice;
    int layerBegin = 0;
    int layerEnd = 0;
    int slice = 0;          // TpSlice only
    int sliceCount = 1;     // TpSlice only
    bool embedding = false; // Replicated only
    bool head = false;      // Replicated only
    double batchShare = 0;  // samples of the rank's replica per iteration / global batch
    int tpCopies = 1;       // ranks of the replica holding the same values: tpDegree for
                            // Replicated, 1 for TpSlice
    double weight = 0;      // batchShare / tpCopies

    bool operator==(const GradSync &) const = default;
};

// Adam on the rank's parameters with the synchronised gradients; the last op of every program.
struct OptimizerStep
{
    bool operator==(const OptimizerStep &) const = default;
};

using Op = std::variant<Forward, Backward, Exchange, Broadcast, GradSync, OptimizerStep>;

// One pipeline's share of the global batch.
struct PipelineSamples
{
    SampleRange rows;     // contiguous in the global batch
    int microBatch = 1;   // rows per micro-batch
    int microBatches = 1; // micro-batch m covers rows.begin + m·microBatch, + microBatch
    int stages = 1;

    bool operator==(const PipelineSamples &) const = default;
};

// Everything every rank needs: the same value on every rank.
struct JobProgram
{
    int globalBatch = 0; // sequences per iteration
    int seqLen = 0;      // tokens per sequence (before any scale-down)
    int layers = 0;
    std::vector<PipelineSamples> pipelines;
    std::vector<Rank> ranks;               // index = rank
    std::vector<Group> groups;             // creation order
    std::vector<std::vector<Op>> programs; // per rank: one iteration, in execution order;
                                           // empty but for one rank when compiled for it

    bool operator==(const JobProgram &) const = default;
};

} // namespace hetplan::runtime
