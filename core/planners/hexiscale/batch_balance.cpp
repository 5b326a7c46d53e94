#include "core/planners/hexiscale/batch_balance.h"

#include <queue>

#include <utility>

namespace hetplan::hexiscale {

std::vector<int> balanceMicroBatches(std::span<const PipelineShapeCost> pipelines, int microBatches)
{
    const int count = int(pipelines.size());
    if (count == 0 || microBatches < count)
        return {};
    std::vector<int> given(size_t(count), 1);
    using Next = std::pair<double, int>; // time after one more micro-batch, pipeline
    std::priority_queue<Next, std::vector<Next>, std::greater<>> queue;
    for (int i = 0; i < count; ++i)
        queue.emplace(pipelines[size_t(i)].timeS(2), i);
    for (int left = microBatches - count; left > 0; --left) {
        const int i = queue.top().second;
        queue.pop();
        ++given[size_t(i)];
        queue.emplace(pipelines[size_t(i)].timeS(given[size_t(i)] + 1), i);
    }
    return given;
}

} // namespace hetplan::hexiscale
