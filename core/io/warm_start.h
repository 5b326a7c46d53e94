#pragma once

#include "core/base/result.h"
#include "core/plan/plan.h"

#include <string_view>
#include <vector>

namespace hetplan {

class Topology;

// A plan file read as the warm start of a re-plan after GPUs left (HexGen §5.3): GPUs the
// cluster no longer has, or listed in `offline` (flat indices), are dropped; a stage left
// without GPUs goes, a stage that lost some becomes one TP group of what is left; the estimate
// is ignored. The result may no longer cover every layer: planners use it as a starting point
// only. A file that is not a plan gets parsePlan's message.
Result<Plan> parseWarmStart(std::string_view text, std::string_view source,
                            const Topology &topology, const std::vector<int> &offline);

} // namespace hetplan
