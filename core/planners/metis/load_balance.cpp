#include "core/planners/metis/load_balance.h"

#include <queue>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <functional>
#include <tuple>
#include <utility>

namespace hetplan::metis {

namespace {

// Hands out units one at a time to whichever holder is least loaded after taking it; equal
// loads go to the holder with the lower `tieBreak` (then the lower index), so every run
// resolves them the same way.
template<typename LoadAfter, typename CanTake>
void distribute(std::vector<int> &units, int extra, LoadAfter loadAfter,
                std::span<const double> tieBreak, CanTake canTake)
{
    using Entry = std::tuple<double, double, size_t>; // load after one more, tie-break, holder
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
    const auto push = [&](size_t i) {
        if (canTake(i))
            queue.emplace(loadAfter(i, units[i] + 1), tieBreak.empty() ? 0.0 : tieBreak[i], i);
    };
    for (size_t i = 0; i < units.size(); ++i)
        push(i);
    for (int given = 0; given < extra && !queue.empty(); ++given) {
        const size_t i = std::get<2>(queue.top());
        queue.pop();
        ++units[i];
        push(i);
    }
}

} // namespace

std::vector<int> balanceData(std::span<const double> secondsPerSequence,
                             std::span<const double> memoryGiB, int sequences)
{
    assert(secondsPerSequence.size() == memoryGiB.size());
    assert(sequences >= int(secondsPerSequence.size()));
    std::vector<int> shares(secondsPerSequence.size(), 1);
    std::vector<double> lessMemoryFirst;
    for (double gib : memoryGiB)
        lessMemoryFirst.push_back(-gib);
    distribute(
        shares, sequences - int(shares.size()),
        [&](size_t r, int n) { return n * secondsPerSequence[r]; }, lessMemoryFirst,
        [](size_t) { return true; });
    return shares;
}

std::optional<std::vector<int>> balanceLayers(std::span<const StageLoad> stages, int layers)
{
    const int count = int(stages.size());
    if (count == 0 || count > layers)
        return std::nullopt;
    long long room = 0;
    double sumFixedOverRate = 0;
    double sumRate = 0;
    for (const StageLoad &stage : stages) {
        if (stage.maxLayers < 1)
            return std::nullopt;
        room += stage.maxLayers;
        const double perLayerS = std::max(stage.perLayerS, 1e-12);
        sumFixedOverRate += stage.fixedS / perLayerS;
        sumRate += 1.0 / perLayerS;
    }
    if (room < layers)
        return std::nullopt;
    // Start just below the continuous balance (every stage at the level where the layers
    // just run out), then settle the last few layers one at a time.
    const double levelS = (layers + sumFixedOverRate) / sumRate;
    std::vector<int> assigned(static_cast<size_t>(count), 0);
    int placed = 0;
    for (int j = 0; j < count; ++j) {
        const StageLoad &stage = stages[size_t(j)];
        const double share = (levelS - stage.fixedS) / std::max(stage.perLayerS, 1e-12);
        const int n
            = share >= stage.maxLayers ? stage.maxLayers : std::max(1, int(std::floor(share)) - 1);
        assigned[size_t(j)] = std::min(n, stage.maxLayers);
        placed += assigned[size_t(j)];
    }
    // Too many (the lower bound of one layer each): take from the slowest stages first.
    while (placed > layers) {
        size_t slowest = 0;
        double slowestS = -1;
        for (size_t j = 0; j < assigned.size(); ++j) {
            const double loadS = stages[j].fixedS + assigned[j] * stages[j].perLayerS;
            if (assigned[j] > 1 && loadS > slowestS) {
                slowestS = loadS;
                slowest = j;
            }
        }
        --assigned[slowest];
        --placed;
    }
    distribute(
        assigned, layers - placed,
        [&](size_t j, int n) { return stages[j].fixedS + n * stages[j].perLayerS; }, {},
        [&](size_t j) { return assigned[j] < stages[j].maxLayers; });
    return assigned;
}

} // namespace hetplan::metis
