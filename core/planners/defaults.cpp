#include "core/planners/planner.h"

namespace hetplan {

// Default: the strongest planner built so far for each mode.
PlannerKind defaultPlanner(Mode mode)
{
    return mode == Mode::Train ? PlannerKind::HexiScale : PlannerKind::HexGen;
}

std::vector<PlannerKind> plannersFor(Mode mode)
{
    if (mode == Mode::Infer)
        return {PlannerKind::HexGen};
    return {PlannerKind::HexiScale, PlannerKind::Metis, PlannerKind::Holmes, PlannerKind::Megatron};
}

} // namespace hetplan
