#pragma once

// A plan in the terms of other runtimes (docs/export.md): FlashFlex's and HexGen's own launch
// arguments, and the rank layout a person's own trainer needs. Errors say what the target
// cannot express and why, naming the pipeline and stage.

#include "core/base/result.h"
#include "core/model/model_spec.h"
#include "core/plan/plan.h"
#include "core/plan/rank_layout.h"

#include <string>
#include <string_view>
#include <vector>

namespace hetplan {

class Topology;

inline constexpr std::string_view kRanksFormat = "hetplan.ranks/1";

// FlashFlex's llama_train.py (HexiScale's runtime): --total-layer-num, --hetero_configs (GPUs
// per stage, per pipeline), --layer_partitions, --pp_layouts (each stage's ranks, in the rank
// order of rankLayout), --global_bsz_size and --chunks per pipeline; one "--flag value" per
// line, continued with a backslash. Training plans whose stages are one TP group each.
Result<std::string> flashflexArguments(const Plan &plan, const ModelSpec &model,
                                       const std::vector<RankPlacement> &layout);

// HexGen's llama_inference.py: one serving replica per job, so one entry per pipeline with its
// --hetero_config (TP per stage) and --pp_partition (layers per stage). Serving plans only.
struct HexgenReplica
{
    int firstRank = 0; // the replica's rank 0 in the plan's rank order
    int worldSize = 0;
    std::string arguments; // "--hetero_config 4 2 --pp_partition 20 12"
};
Result<std::vector<HexgenReplica>> hexgenArguments(const Plan &plan, const ModelSpec &model);

// hetplan.ranks/1: the layout as JSON, with the environment each rank's process gets.
std::string writeRankLayout(const Plan &plan, const std::vector<RankPlacement> &layout);

} // namespace hetplan
