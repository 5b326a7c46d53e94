#include "core/planners/hexiscale/batch_balance.h"

#include <queue>

#include <algorithm>
#include <cmath>
#include <utility>

namespace hetplan::hexiscale {
namespace {

// How many more micro-batches than one `pipeline` takes before the greedy below reaches
// `limitS`: the k ≥ 2 with timeS(k) < limitS, at most `most`. The closed form, corrected by
// the exact comparisons the greedy would make.
int takenBelow(const PipelineShapeCost &pipeline, double limitS, int most)
{
    const double steps = (limitS - pipeline.sumS) / pipeline.bottleneckS;
    int n = int(std::clamp(std::ceil(steps) - 1, 0.0, double(most)));
    while (n > 0 && !(pipeline.timeS(n + 1) < limitS))
        --n;
    while (n < most && pipeline.timeS(n + 2) < limitS)
        ++n;
    return n;
}

} // namespace

std::vector<int> balanceMicroBatches(std::span<const PipelineShapeCost> pipelines, int microBatches)
{
    const int count = int(pipelines.size());
    if (count == 0 || microBatches < count)
        return {};
    std::vector<int> given(size_t(count), 1);
    int left = microBatches - count;
    // The greedy hands out the candidates timeS(k), k ≥ 2, of all pipelines in increasing order:
    // everything below a limit that fits in `left` goes without the queue (a bisection over the
    // limit), so only the last few, about one per pipeline, are handed out one at a time.
    bool growing = left > 4 * count;
    for (const PipelineShapeCost &p : pipelines)
        growing = growing && p.bottleneckS > 0 && std::isfinite(p.timeS(2));
    if (growing) {
        const int spare = left;
        double lowS = 0;
        double highS = 0;
        for (const PipelineShapeCost &p : pipelines)
            highS = std::max(highS, p.timeS(spare + 2));
        for (int step = 0; step < 64 && lowS < highS; ++step) {
            const double midS = lowS + (highS - lowS) / 2;
            if (midS <= lowS || midS >= highS)
                break;
            long taken = 0;
            for (const PipelineShapeCost &p : pipelines)
                taken += takenBelow(p, midS, spare);
            (taken <= spare ? lowS : highS) = midS;
        }
        for (int i = 0; i < count; ++i) {
            const int taken = takenBelow(pipelines[size_t(i)], lowS, spare);
            given[size_t(i)] += taken;
            left -= taken;
        }
    }
    using Next = std::pair<double, int>; // time after one more micro-batch, pipeline
    std::priority_queue<Next, std::vector<Next>, std::greater<>> queue;
    for (int i = 0; i < count; ++i)
        queue.emplace(pipelines[size_t(i)].timeS(given[size_t(i)] + 1), i);
    for (; left > 0; --left) {
        const int i = queue.top().second;
        queue.pop();
        ++given[size_t(i)];
        queue.emplace(pipelines[size_t(i)].timeS(given[size_t(i)] + 1), i);
    }
    return given;
}

} // namespace hetplan::hexiscale
