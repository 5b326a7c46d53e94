#pragma once

// Readers and writers of the objects that appear in more than one file: GPU types (cluster
// gpu_types and the GPU catalog), models (model files and the model catalog), workloads
// (workload files and plans). Internal to core/io.

#include "core/io/hosts_json.h"
#include "core/io/json_util.h"
#include "core/model/gpu_type.h"
#include "core/model/model_spec.h"
#include "core/model/topology.h"
#include "core/model/workload.h"
#include "core/plan/plan.h"

#include <set>
#include <span>

namespace hetplan {
enum class WorkloadField;
} // namespace hetplan

namespace hetplan::jsonio {

std::span<const Choice<LinkKind>> linkKinds();

// {"kind", "bandwidth_GBps", "latency_us"}; latency defaults to IntraLink{}'s.
IntraLink readIntraLink(const Value &value);
OrderedJson intraLinkJson(const IntraLink &link);

// {"name", "tflops", "memory_GiB", "membw_GBps", "intra"?, "achieved_fraction"?, "compute_scale"?,
//  "price_per_hour_usd"?, "accumulate"?, "source"?}
GpuType readGpuType(const Value &value);
OrderedJson gpuTypeJson(const GpuType &type);

// The model fields of docs/formats.md; the caller has read (or rejected) "format".
ModelSpec readModelFields(Object &object);
void writeModelFields(OrderedJson &j, const ModelSpec &m);

// The workload fields; "format" is accepted and checked when present. `defaulted`, when given,
// receives the fields of the mode the object left out (core/io/workload_origin.h).
Workload readWorkloadFields(Object &object, std::set<WorkloadField> *defaulted = nullptr);
void writeWorkloadFields(OrderedJson &j, const Workload &w);

// Whole documents as objects, for a file that nests them (the project file); writeCluster,
// writePlan and writeHosts (core/io/formats.h, hosts_json.h) print these.
OrderedJson clusterDocument(const Cluster &cluster);
OrderedJson planDocument(const Plan &plan, const Topology &topology);
OrderedJson hostsDocument(const HostsFile &hosts);

} // namespace hetplan::jsonio
