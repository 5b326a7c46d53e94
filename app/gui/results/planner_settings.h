#pragma once

#include "core/planners/planner.h"

#include <map>
#include <string>

namespace hetplan::gui {

// What every Plan and Compare runs with, kept in QSettings (the person's, not the project's:
// the same search budget suits every cluster they open): iterations, seed, time limit and
// each planner's own parameters (core/planners/planner_params.h).
struct PlannerSettings
{
    int maxIterations = 0; // 0: each planner's default
    std::uint64_t seed = 1;
    double timeLimitS = 0; // 0: none

    static PlannerSettings load();
    void save() const;
    // The options for one run, with `planner`'s parameters as saved.
    PlannerOptions options(PlannerKind planner) const;
    // The parameters saved for `planner` (name → value, as in plannerParameters()); those
    // never set are left out and keep their defaults.
    static std::map<std::string, double> parameters(PlannerKind planner);
    static void setParameters(PlannerKind planner, const std::map<std::string, double> &values);
};

} // namespace hetplan::gui
