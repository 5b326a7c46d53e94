#pragma once

#include "core/base/result.h"
#include "core/model/cluster.h"
#include "core/model/model_spec.h"
#include "core/model/workload.h"
#include "core/plan/plan.h"

#include <string>
#include <string_view>

namespace hetplan {

class Topology;

// Readers and writers of the JSON formats of docs/formats.md. Readers never throw and never crash
// on hostile input: every problem comes back as an Error whose message names `source`, the JSON
// path of the field ("machines[2].count") and what would be valid. Writers emit the same
// format the readers accept (round trip is the identity on the data).

inline constexpr std::string_view kClusterFormat = "hetplan.cluster/1";
inline constexpr std::string_view kModelFormat = "hetplan.model/1";
inline constexpr std::string_view kPlanFormat = "hetplan.plan/1";
inline constexpr std::string_view kWorkloadFormat = "hetplan.workload/1";

Result<Cluster> parseCluster(std::string_view text, std::string_view source);
std::string writeCluster(const Cluster &cluster);

Result<ModelSpec> parseModel(std::string_view text, std::string_view source);
std::string writeModel(const ModelSpec &model);

// A workload file; its "format" is optional (a bare workload object is accepted too).
Result<Workload> parseWorkload(std::string_view text, std::string_view source);
std::string writeWorkload(const Workload &workload);

// GPU names in a plan are resolved against the topology ("A:0" must exist).
Result<Plan> parsePlan(std::string_view text, std::string_view source, const Topology &topology);
std::string writePlan(const Plan &plan, const Topology &topology);
// The cluster a plan file names, without resolving anything (for `validate FILE`).
Result<std::string> planClusterName(std::string_view text, std::string_view source);

// The "format" field of any HetPlan file, e.g. "hetplan.cluster/1".
Result<std::string> fileFormat(std::string_view text, std::string_view source);

} // namespace hetplan
