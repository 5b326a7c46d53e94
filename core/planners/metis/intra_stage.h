#pragma once

// Metis Algorithm 1 (§4.2.2 parts 2 and 3) for one device-group sequence and one number of
// micro-batches: DP-first intra-stage plans, capacity-aware layer balancing, and the DFS that,
// on a predicted out-of-memory stage, either raises its TP degree (lowering DP) or moves
// layers off it, re-balancing each time. Ranked by the Metis cost (eq. 1).

#include "core/planners/metis/stage_catalog.h"

#include <functional>
#include <span>
#include <vector>

namespace hetplan::metis {

// One complete plan of Algorithm 1: per stage an intra-stage plan and a layer count.
struct Candidate
{
    std::vector<int> plans;  // StageCatalog intra-plan ids
    std::vector<int> layers; // per stage, summing to the model's layers
    int microBatch = 1;
    int microBatches = 1;
    double metisCostS = 0; // eq. 1
};

struct SequenceOutcome
{
    int complete = 0;         // plans that fit, handed to `accept`
    bool outOfMemory = false; // some branch ran out of memory with no way left
};

// Runs Algorithm 1 on `groups` (StageCatalog group ids, in stage order) with micro-batches of
// `microBatch` sequences, `microBatches` of them. Every plan that fits goes to `accept`, at
// most `maxPlans` of them (the DFS branches twice at each out-of-memory stage).
SequenceOutcome searchSequence(StageCatalog &catalog, std::span<const int> groups, int microBatch,
                               int microBatches, int maxPlans,
                               const std::function<void(const Candidate &)> &accept);

// Metis eq. 1: T = Σ_i t_i + (B − 1) · max_j t_j + DP_all, with t_i the stage's compute and
// TP communication plus its hop to the next stage (§4.2.1: "communication overheads across
// stages (for PP) and layers (for TP)"), and DP_all the slowest stage's gradient sync.
double metisCostS(StageCatalog &catalog, const Candidate &candidate);

} // namespace hetplan::metis
