#pragma once

#include "core/planners/hexiscale/search_context.h"

#include <functional>
#include <vector>

namespace hetplan::hexiscale {

// A complete candidate: pipelines with their layers, one micro-batch size, the counts.
struct Layout
{
    std::vector<PipelineDraft> drafts;
    std::vector<int> microBatches;
    int microBatch = 1;
};

// Per GPU of the cluster (flat Topology index): 1 when a stage of `layout` uses it.
std::vector<char> usedGpus(int gpuCount, const Layout &layout);

// Micro-batches balanced over the layout's pipelines (batch_balance.h) after its layers changed.
void rebalance(SearchContext &context, Layout &layout, int globalBatch);

// Hill climbing on a finished candidate with the moves the two phases cannot make: idle a
// stage (its GPUs leave the plan), move a stage to another position, merge two neighbouring
// stages of one machine into a TP group or split one in two, give an idle GPU a stage. Every
// neighbour gets optimised layers and balanced micro-batches and is judged by `costS` (the
// cost model's objective); the best improving neighbour is taken until none improves or
// `evaluations` run out or the search should stop (SearchContext::shouldStop).
Layout polish(SearchContext &context, Layout layout, int evaluations,
              const std::function<double(const Layout &)> &costS);

} // namespace hetplan::hexiscale
