#pragma once

#include "core/planners/hexiscale/search_context.h"

#include <span>
#include <vector>

namespace hetplan::hexiscale {

// HexiScale §3.3: micro-batches are spread over the pipelines so that their times balance
// (asymmetric batch sizes). With pipeline i taking sumS_i + (m_i − 1)·bottleneckS_i for m_i
// micro-batches (eq. 9), giving each next micro-batch to the pipeline that finishes it soonest
// minimises max_i time_i exactly (the times only grow with m_i).
// Every pipeline gets at least one; empty when there are fewer micro-batches than pipelines.
std::vector<int> balanceMicroBatches(std::span<const PipelineShapeCost> pipelines,
                                     int microBatches);

} // namespace hetplan::hexiscale
