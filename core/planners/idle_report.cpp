// describeIdleGpus (planner.h): the "Idle GPUs" part of a plan report (docs/planners.md).
#include "core/model/topology.h"
#include "core/planners/planner.h"

#include <cmath>
#include <cstdio>

namespace hetplan {
namespace {

constexpr size_t kNamedMachines = 3; // machine names shown per class; the rest are counted

std::string seconds(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.3f s", value);
    return text;
}

std::string machineNames(const IdleGpus &idle, const Topology &topology)
{
    std::string names;
    for (size_t i = 0; i < idle.machines.size() && i < kNamedMachines; ++i) {
        if (i > 0)
            names += ", ";
        names += topology.cluster().machines[size_t(idle.machines[i])].name;
    }
    if (idle.machines.size() > kNamedMachines) {
        names += " and ";
        names += std::to_string(idle.machines.size() - kNamedMachines);
        names += " more";
    }
    return names;
}

} // namespace

std::string describeIdleGpus(const PlanSearch &search, const Topology &topology)
{
    if (search.idleGpus.empty())
        return {};
    int idle = 0;
    for (const IdleGpus &c : search.idleGpus)
        idle += c.gpusPerMachine * int(c.machines.size());
    const double planS = search.evaluation.objectiveS();
    std::string text = "  Idle GPUs: " + std::to_string(idle) + " of "
                       + std::to_string(topology.gpuCount()) + "\n";
    for (const IdleGpus &c : search.idleGpus) {
        text += "    " + std::to_string(c.gpusPerMachine) + "x " + c.gpuType + " on ";
        text += std::to_string(c.machines.size());
        text += c.machines.size() == 1 ? " machine (" : " machines (";
        text += machineNames(c, topology) + "): ";
        if (!std::isfinite(c.withOneAddedS)) {
            text += c.whyNot + "\n";
            continue;
        }
        const double changeS = c.withOneAddedS - planS;
        text += "one more machine's as " + c.bestUse + " makes " + seconds(c.withOneAddedS);
        text += changeS >= 0 ? " (" + seconds(changeS) + " slower)\n"
                             : " (" + seconds(-changeS) + " faster)\n";
    }
    return text;
}

} // namespace hetplan
