#pragma once

#include "core/planners/hexiscale/search_context.h"

namespace hetplan::hexiscale {

// HexiScale §4.3 after the stage order is fixed: layers go to stages in proportion to their
// capacity (layers per second from the cost model), then, while the pipeline gets faster, one
// layer at a time moves off the bottleneck stage to the stage where it costs least and still
// fits in memory. Stages that cannot hold their share hand layers on first.
// Fills draft.layers; false when the stages cannot hold the model at all.
// `microBatches` is the expected count for this pipeline (1F1B memory and eq. 9's weight).
bool assignLayers(SearchContext &context, PipelineDraft &draft, int microBatch, int microBatches);

// Layers of one pipeline for m micro-batches: every composition when there are few (exact for
// eq. 9 with memory), otherwise capacity assignment and refinement (assignLayers).
bool optimiseLayers(SearchContext &context, PipelineDraft &draft, int microBatch, int microBatches);

} // namespace hetplan::hexiscale
