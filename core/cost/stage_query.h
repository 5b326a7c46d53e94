#pragma once

// What planners and the cost driver ask a cost model's terms about: one stage of a pipeline.
// Below the cost model and its terms, so both can name it without including each other.

#include "core/model/topology.h"
#include "core/plan/estimate.h"

#include <span>

namespace hetplan {

// One stage as planners ask about it, before a whole Plan exists.
struct StageQuery
{
    std::span<const int> gpus; // flat Topology indices; dp replicas of tp consecutive GPUs
    int tp = 1;
    int dp = 1;
    std::span<const int> dpSplit; // empty = even split of the micro-batch
    int layerBegin = 0;
    int layerEnd = 0;
    int microBatch = 1; // sequences per micro-batch (training) or batch (inference)
    int stageIndex = 0; // position in its pipeline: end stages hold embedding/head,
    int stageCount = 1; // and 1F1B keeps (stageCount - stageIndex) micro-batches in flight
    int microBatches = 1;
    PathKind tpPath = PathKind::Widest;  // links between machines its TP groups use, and
    PathKind hopPath = PathKind::Widest; // the hop to the next stage (core/plan/transport.h)
};

struct StageEstimate
{
    StageTiming timing;       // per micro-batch; hopS and dpCommS are left 0
    double peakMemoryGiB = 0; // the stage's most loaded GPU
    int peakMemoryGpu = -1;   // which GPU that is
    bool fits = true;         // every GPU of the stage within its capacity
};

} // namespace hetplan
