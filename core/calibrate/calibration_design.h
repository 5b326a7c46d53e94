#pragma once

// A calibration job (docs/calibration.md, "Designing the runs"): a short set of plans whose
// runs, fitted together, identify every figure calibration fits for a cluster and workload:
// each GPU type's achieved fraction, each link kind's transport efficiency and latency factor.

#include "core/base/result.h"
#include "core/model/model_spec.h"
#include "core/model/workload.h"
#include "core/plan/plan.h"

#include <string>
#include <vector>

namespace hetplan {

class Topology;

// Two bandwidths of a link kind closer than this give nearly the same ratio of latency to
// transfer time, and an efficiency and a host-side ceiling move them alike: a second pair of the
// kind tells a fit nothing new (the design's pairs, calibration's ceiling).
inline constexpr double kDistinctBandwidthRatio = 1.1;

// One run of the design: its plan and what it is there to exercise.
struct DesignedRun
{
    std::string name;      // file stem: "gpu-<type>-mb1", "pp-ethernet-A-C", "dp-ethernet-A-B"
    std::string exercises; // "CPU Xeon compute at micro-batch 1", "ethernet hop A:0 -> C:0"
    Plan plan;
};

// Per GPU type, one GPU alone with every layer at the workload's micro-batch and at twice it
// (compute at two GEMM shapes). Per link kind, its fastest and its slowest pair of GPUs (both
// when their bandwidths differ by more than a tenth: two message-time ratios separate the
// bandwidth efficiency from the latency factor, and the efficiency from a host-side ceiling),
// each as a two-stage pipeline (hops of one activation) and as two data-parallel replicas (an
// all-reduce of every gradient); where the kind joins three or more machines, also one replica
// on the first GPU of each ("dp-KIND-ring": the ring's loss over more machines). Every plan
// keeps the workload's sequence length and precision and runs its global batch. BadInput when
// the model has fewer than two layers, or the global batch holds less than one micro-batch.
Result<std::vector<DesignedRun>> designCalibration(const Topology &topology, const ModelSpec &model,
                                                   const Workload &workload);

} // namespace hetplan
