#pragma once

// Helpers every cost model's terms and the driver share: transfer times, a stage's DP
// replicas and their shares, the StageQuery view of a planned stage, and the layer segments
// that data-parallel synchronisation is computed over. They call nothing of the cost layer
// above them.

#include "core/base/infinity.h"
#include "core/cost/stage_query.h"

#include <span>
#include <utility>
#include <vector>

namespace hetplan {

struct Plan;
struct Pipeline;
class PlanPaths;

inline constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;

// Seconds to move `bytes` over `bytesPerS`; +inf over a missing link, 0 for nothing to move.
inline double transferS(double bytes, double bytesPerS)
{
    if (bytes <= 0)
        return 0;
    return bytesPerS > 0 ? bytes / bytesPerS : kInfinity;
}

// The GPUs of DP replica `replica` of a stage: `tp` consecutive entries of its GPU list.
inline std::span<const int> replicaGpus(const StageQuery &stage, int replica)
{
    return stage.gpus.subspan(static_cast<size_t>(replica * stage.tp),
                              static_cast<size_t>(stage.tp));
}

// Sequences replica `replica` processes per micro-batch (per batch for inference): its
// dp_split share of `stage.microBatch`, or an even split when dp_split is empty.
double replicaShare(const StageQuery &stage, int replica);

// The view of stage `stageIndex` of `pipeline` that evaluate hands to the same per-stage
// terms planners call. `microBatch` is the pipeline's (training) or the request batch
// (inference, HexGen's b_t). `paths`: the links its TP groups and its hop use (the plan's
// transports); without, the widest paths.
StageQuery stageQueryOf(const Pipeline &pipeline, int stageIndex, int microBatch,
                        const PlanPaths *paths = nullptr);

// The transformer layers cut at every stage boundary of every pipeline: inside one segment
// the same stages (hence the same GPUs) hold each layer, so per-layer DP terms are computed
// once per segment rather than once per layer.
struct LayerSegments
{
    std::vector<int> bounds;  // ascending; segment i is [bounds[i], bounds[i + 1])
    std::vector<int> holders; // segmentCount × pipelineCount: stage index, -1 if none
    int pipelineCount = 0;

    int segmentCount() const { return bounds.empty() ? 0 : int(bounds.size()) - 1; }
    int length(int segment) const { return bounds[size_t(segment) + 1] - bounds[size_t(segment)]; }
    int holder(int segment, int pipeline) const
    {
        return holders[size_t(segment) * size_t(pipelineCount) + size_t(pipeline)];
    }
    // Segments inside [layerBegin, layerEnd): [first, last).
    std::pair<int, int> segmentsOf(int layerBegin, int layerEnd) const;
    // Replicas holding the segment: Σ over pipelines of the holding stage's dp.
    int replicas(const Plan &plan, int segment) const;

    void build(const Plan &plan);
};

} // namespace hetplan
