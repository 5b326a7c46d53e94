#pragma once

#include "core/planners/planner.h"

namespace hetplan::gui {

// What every Plan and Compare runs with, kept in QSettings (the person's, not the project's:
// the same search budget suits every cluster they open): iterations, seed, time limit and
// each planner's own knobs.
struct PlannerSettings
{
    int maxIterations = 0; // 0: each planner's default
    std::uint64_t seed = 1;
    double timeLimitS = 0; // 0: none

    static PlannerSettings load();
    void save() const;
    // The options for one run, with `planner`'s knobs as saved.
    PlannerOptions options(PlannerKind planner) const;
    // The knobs saved for `planner` (name → value), unset ones left out.
    static std::map<std::string, double> knobs(PlannerKind planner);
    static void setKnobs(PlannerKind planner, const std::map<std::string, double> &knobs);
};

} // namespace hetplan::gui
