#pragma once

#include "core/planners/hexiscale/local_search.h"
#include "core/planners/planner.h"

#include <functional>
#include <optional>
#include <vector>

namespace hetplan::hexiscale {

// One way to put a machine's idle GPUs to work, priced by the search's objective.
struct Addition
{
    Layout layout;
    double costS = 0;
    std::string use; // in words: "a stage at position 3 of pipeline 2", "a pipeline of its own"
};

// The idle GPUs of `layout` by machine class (docs/planners.md, "Idle GPUs"), each with the best
// addition of one machine of the class found: as a stage in every pipeline (at most 8 places
// each, chosen by the closed form of eq. 9, the best priced by `costS`), or as a pipeline of its
// own. Empty when every GPU works.
std::vector<IdleGpus> idleGpus(SearchContext &context, const Layout &layout,
                               const std::function<double(const Layout &)> &costS);

} // namespace hetplan::hexiscale
