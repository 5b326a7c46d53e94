#include "core/cost/cost_helpers.h"

#include "core/plan/plan.h"
#include "core/plan/transport.h"

#include <algorithm>

namespace hetplan {

double replicaShare(const StageQuery &stage, int replica)
{
    if (stage.dpSplit.empty() || stage.dp <= 1)
        return double(stage.microBatch) / std::max(stage.dp, 1);
    double total = 0;
    for (int share : stage.dpSplit)
        total += share;
    if (total <= 0)
        return 0;
    return double(stage.microBatch) * stage.dpSplit[size_t(replica)] / total;
}

StageQuery stageQueryOf(const Pipeline &pipeline, int stageIndex, int microBatch,
                        const PlanPaths *paths)
{
    const Stage &stage = pipeline.stages[size_t(stageIndex)];
    StageQuery query;
    query.gpus = stage.gpus;
    query.tp = std::max(stage.tp, 1);
    query.dp = std::max(stage.dp, 1);
    query.dpSplit = stage.dpSplit;
    query.layerBegin = stage.layerBegin;
    query.layerEnd = stage.layerEnd;
    query.microBatch = microBatch;
    query.stageIndex = stageIndex;
    query.stageCount = int(pipeline.stages.size());
    query.microBatches = pipeline.microBatches;
    if (paths) {
        query.tpPath = paths->tp(stage);
        query.hopPath = paths->hop(stage);
    }
    return query;
}

std::pair<int, int> LayerSegments::segmentsOf(int layerBegin, int layerEnd) const
{
    const auto first = std::lower_bound(bounds.begin(), bounds.end(), layerBegin);
    const auto last = std::lower_bound(first, bounds.end(), layerEnd);
    return {int(first - bounds.begin()), int(last - bounds.begin())};
}

int LayerSegments::replicas(const Plan &plan, int segment) const
{
    int count = 0;
    for (int p = 0; p < pipelineCount; ++p) {
        const int stage = holder(segment, p);
        if (stage >= 0)
            count += std::max(plan.pipelines[size_t(p)].stages[size_t(stage)].dp, 1);
    }
    return count;
}

void LayerSegments::build(const Plan &plan)
{
    bounds.clear();
    holders.clear();
    pipelineCount = int(plan.pipelines.size());
    for (const Pipeline &pipeline : plan.pipelines)
        for (const Stage &stage : pipeline.stages) {
            bounds.push_back(stage.layerBegin);
            bounds.push_back(stage.layerEnd);
        }
    std::sort(bounds.begin(), bounds.end());
    bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
    holders.assign(size_t(std::max(segmentCount(), 0)) * size_t(pipelineCount), -1);
    for (int p = 0; p < pipelineCount; ++p) {
        const std::vector<Stage> &stages = plan.pipelines[size_t(p)].stages;
        size_t j = 0;
        for (int segment = 0; segment < segmentCount(); ++segment) {
            const int begin = bounds[size_t(segment)];
            while (j < stages.size() && stages[j].layerEnd <= begin)
                ++j;
            if (j < stages.size() && stages[j].layerBegin <= begin)
                holders[size_t(segment) * size_t(pipelineCount) + size_t(p)] = int(j);
        }
    }
}

} // namespace hetplan
