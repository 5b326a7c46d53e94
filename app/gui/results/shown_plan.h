#pragma once

#include "core/cost/problem.h"
#include "core/plan/estimate.h"
#include "core/plan/plan.h"

#include <memory>

namespace hetplan::gui {

// The plan every results view shows, with the problem it was evaluated on (shared, so the
// views do not each copy the topology) and its evaluation under the chosen cost model.
struct ShownPlan
{
    std::shared_ptr<const Problem> problem;
    Plan plan;
    Evaluation evaluation;
};

} // namespace hetplan::gui
