#pragma once

#include "core/cost/evaluation.h"
#include "core/model/workload.h"

#include <optional>
#include <string>
#include <vector>

namespace hetplan {

// One pipeline stage: `gpus` are flat Topology indices. They form `dp` replicas of `tp`
// consecutive GPUs each (Metis-style DP inside a stage when dp > 1).
struct Stage
{
    std::vector<int> gpus;
    int tp = 1;
    int dp = 1;
    int layerBegin = 0; // half-open [layerBegin, layerEnd) of transformer layers
    int layerEnd = 0;
    std::vector<int> dpSplit; // per DP replica, its share of each micro-batch; empty = even

    int layerCount() const { return layerEnd - layerBegin; }
    bool operator==(const Stage &) const = default;
};

// A data-parallel replica of the whole model (training) or one serving replica (inference).
struct Pipeline
{
    int microBatch = 1;     // sequences per micro-batch
    int microBatches = 1;   // micro-batches per iteration (training only)
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
