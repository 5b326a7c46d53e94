#pragma once

#include "core/base/result.h"
#include "core/cost/cost_model.h"
#include "core/io/hosts_json.h"
#include "core/model/cluster.h"
#include "core/model/model_spec.h"
#include "core/model/workload.h"
#include "core/plan/plan.h"
#include "core/planners/planner.h"

#include <optional>
#include <string>
#include <string_view>

namespace hetplan {

inline constexpr std::string_view kProjectFormat = "hetplan.project/1";

// Everything the designer saves: a cluster and what to plan on it (docs/formats.md, "Project");
// the app converts it to and from its document (app/gui/model/document.h).
//   {"format": "hetplan.project/1",
//    "cluster": {a whole hetplan.cluster/1 document},
//    "model": "llama2-13b" or {the fields of a hetplan.model/1 file},
//    "workload": {the fields of a workload file},
//    "planner": "hexiscale", "cost_model": "hetplan",
//    "plan": {a whole hetplan.plan/1 document, optional: the last plan found},
//    "plan_cluster": {a whole hetplan.cluster/1 document, optional: the cluster the plan was
//                     made for, where the cluster has been edited since; the plan's GPU names
//                     are this cluster's},
//    "hosts": {a whole hetplan.hosts/1 document, optional: where each machine runs for Tools ›
//              Launch; the machines' own "host" stays the host name the canvas shows}}
struct Project
{
    Cluster cluster;
    std::string modelName = "llama2-13b"; // a catalog entry; unused when customModel is set
    std::optional<ModelSpec> customModel;
    Workload workload;
    PlannerKind planner = PlannerKind::HexiScale;
    CostModelKind costModel = CostModelKind::HetPlan;
    std::optional<Plan> lastPlan; // its GPUs are indices into the topology of planCluster()
    // The cluster lastPlan was made for, where it is not `cluster` for planning.
    std::optional<Cluster> lastPlanCluster;
    // The SSH destination of each machine for launching (empty: none mapped yet).
    HostsFile hosts;

    const Cluster &planCluster() const { return lastPlanCluster ? *lastPlanCluster : cluster; }

    // The model to plan for: the custom one, or the catalog entry.
    Result<ModelSpec> model() const;
};

// Equal for planning: everything but canvas positions, SSH hosts, name and description.
bool samePlanningCluster(const Cluster &a, const Cluster &b);

// Strict, like every reader of the core: the first problem is the Error, naming `source`,
// the field and what would be valid. Reads the cluster, model, workload and plan with the
// core's own readers; the cluster must also pass checkCluster (GPU types known).
Result<Project> parseProject(std::string_view text, std::string_view source);
std::string writeProject(const Project &project);

// A project file, or a plain cluster file (which gets the default model and workload).
Result<Project> readProjectFile(const std::string &path);
// Atomic: readers of `path` see the old or the new project, never a mix.
Status saveProjectFile(const Project &project, const std::string &path);

} // namespace hetplan
