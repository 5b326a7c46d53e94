#pragma once

#include "core/model/workload.h"
#include "core/plan/estimate.h"

#include <optional>
#include <string>
#include <vector>

namespace hetplan {

// How a communication group's traffic between machines travels (Holmes §3.2, automatic NIC
// selection): over one RDMA fabric, InfiniBand or RoCE (the launcher binds the group's NCCL
// communicator to that kind of HCA, NCCL_IB_HCA), or over TCP sockets on Ethernet
// (NCCL_IB_DISABLE=1, NCCL_SOCKET_IFNAME). GPUs of one machine always use its intra link.
enum class Transport { InfiniBand, Roce, Socket };

// The transports of a stage's communication groups; an absent one is what stock NCCL picks for
// the whole job (PlanPaths, core/plan/transport.h).
struct StageTransport
{
    std::optional<Transport> tp; // all-reduces inside each of its TP groups
    std::optional<Transport> pp; // activations to, and gradients back from, the next stage
    std::optional<Transport> dp; // gradient all-reduce with every replica holding its layers

    bool empty() const { return !tp && !pp && !dp; }
    bool operator==(const StageTransport &) const = default;
};

// One pipeline stage: `gpus` are flat Topology indices. They form `dp` replicas of `tp`
// consecutive GPUs each (Metis-style DP inside a stage when dp > 1).
struct Stage
{
    std::vector<int> gpus;
    int tp = 1;
    int dp = 1;
    int layerBegin = 0; // half-open [layerBegin, layerEnd) of transformer layers
    int layerEnd = 0;
    std::vector<int> dpSplit;   // per DP replica, its share of each micro-batch; empty = even
    StageTransport transport{}; // default member initializer: aggregate inits may omit it

    int layerCount() const { return layerEnd - layerBegin; }
    bool operator==(const Stage &) const = default;
};

// A data-parallel replica of the whole model (training) or one serving replica (inference).
struct Pipeline
{
    int microBatch = 1;   // sequences per micro-batch
    int microBatches = 1; // micro-batches per iteration (training only)
    std::vector<Stage> stages;

    bool operator==(const Pipeline &) const = default;
};

// A parallel plan (hetplan.plan/1). Pipelines may differ in stages, TP degrees and
// micro-batch counts (HexiScale's asymmetric plans).
struct Plan
{
    std::string planner;
    std::string costModel;
    std::string cluster;
    std::string model;
    Workload workload;
    std::vector<Pipeline> pipelines;
    std::optional<Evaluation> estimate; // written by whoever produced the plan

    // Structural equality: ignores the estimate and provenance.
    bool sameLayout(const Plan &other) const { return pipelines == other.pipelines; }
};

} // namespace hetplan
