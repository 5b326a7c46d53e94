#include "core/planners/holmes/layer_partition.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>

namespace hetplan::holmes {

namespace {

// Raises every count to its minimum, taking from the counts with the most to spare (the
// last first among equals, as eq. 5 leaves the rest to the last fabric).
void raiseToMinimum(std::vector<int> &counts, std::span<const int> minimum)
{
    for (size_t i = 0; i < counts.size(); ++i)
        while (counts[i] < minimum[i]) {
            size_t donor = counts.size();
            int spare = 0;
            for (size_t k = counts.size(); k-- > 0;)
                if (counts[k] - minimum[k] > spare) {
                    spare = counts[k] - minimum[k];
                    donor = k;
                }
            assert(donor < counts.size()); // Σ minimum ≤ Σ counts
            --counts[donor];
            ++counts[i];
        }
}

} // namespace

std::vector<int> fabricLayers(std::span<const double> speeds, std::span<const int> stages,
                              int layers, double alpha)
{
    assert(speeds.size() == stages.size());
    if (speeds.empty())
        return {};
    const double total = std::accumulate(speeds.begin(), speeds.end(), 0.0);
    std::vector<int> counts(speeds.size(), 0);
    int assigned = 0;
    for (size_t i = 0; i + 1 < speeds.size(); ++i) {
        const double share = total > 0 ? speeds[i] / total : 1.0 / double(speeds.size());
        counts[i] = std::clamp(int(std::floor(alpha * share * layers)), 0, layers - assigned);
        assigned += counts[i];
    }
    counts.back() = layers - assigned;
    raiseToMinimum(counts, stages);
    return counts;
}

std::vector<int> spreadLayers(int layers, std::span<const double> speeds)
{
    assert(layers >= int(speeds.size()));
    if (speeds.empty())
        return {};
    const double total = std::accumulate(speeds.begin(), speeds.end(), 0.0);
    std::vector<int> counts(speeds.size());
    std::vector<double> remainders(speeds.size());
    int assigned = 0;
    for (size_t i = 0; i < speeds.size(); ++i) {
        const double exact
            = total > 0 ? layers * speeds[i] / total : double(layers) / double(speeds.size());
        counts[i] = int(std::floor(exact));
        remainders[i] = exact - counts[i];
        assigned += counts[i];
    }
    std::vector<size_t> order(speeds.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return remainders[a] > remainders[b]; });
    for (size_t k = 0; assigned < layers; k = (k + 1) % order.size(), ++assigned)
        ++counts[order[k]];
    const std::vector<int> ones(speeds.size(), 1);
    raiseToMinimum(counts, ones);
    return counts;
}

} // namespace hetplan::holmes
