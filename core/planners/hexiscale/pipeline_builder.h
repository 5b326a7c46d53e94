#pragma once

#include "core/planners/hexiscale/search_context.h"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace hetplan::hexiscale {

// How a machine's GPUs inside one part become stages (§4.3 step (ii)).
enum class TpPolicy {
    LocallyBest, // the TP degree the cost model rates fastest for the part's share of layers
    Widest,      // the largest allowed TP group: fewest stages
    Narrowest,   // tp = 1: one stage per GPU
};

struct PipelineBuildOptions
{
    int parts = 1; // k_i of §4.3 step (i)
    TpPolicy policy = TpPolicy::LocallyBest;
    int tau = 2; // top-τ of the stage-order search, §4.3 step (iii)
    int microBatch = 1;
    int microBatches = 1; // expected for this pipeline
    int ufactor = 30;
    std::uint64_t seed = 1;
};

// Phase 2 of HexiScale (§4.3) for one group of GPUs: secondary METIS partition into k_i parts,
// locally best stages per machine inside each part, top-τ greedy order of the parts along
// high bandwidth, then layers (optimiseLayers: exact when the compositions are few, capacity
// and refinement otherwise). Empty when the group cannot hold the model (memory) or the search
// should stop (SearchContext::shouldStop).
std::optional<PipelineDraft> buildPipeline(SearchContext &context, std::span<const int> gpus,
                                           const PipelineBuildOptions &options);

// Steps (ii) and (iii) of buildPipeline for parts (`groups`) chosen by the caller instead of METIS
// (e.g. one part per machine of a pipeline striped across machines); options.parts is not used.
std::optional<PipelineDraft> buildPipelineFromParts(SearchContext &context,
                                                    const std::vector<std::vector<int>> &groups,
                                                    const PipelineBuildOptions &options);

} // namespace hetplan::hexiscale
