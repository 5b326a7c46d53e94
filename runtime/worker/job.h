#pragma once

#include "core/base/result.h"
#include "core/model/cluster.h"
#include "core/model/model_spec.h"
#include "core/model/topology.h"
#include "core/plan/plan.h"
#include "runtime/program/program.h"
#include "runtime/worker/scaled_model.h"

#include <optional>
#include <string>

namespace hetplan::runtime {

// What names a job: the plan file, optionally a cluster and model other than the ones the plan
// names (a bundled name or a file, as the CLI accepts them), and --scale.
struct JobSource
{
    std::string planPath;
    std::optional<std::string> cluster;
    std::optional<std::string> model;
    int scale = 1;
    // Set in a worker: compile this rank's program only, and leave the whole-job check to
    // whoever started the ranks (`hetplan-cli run` checks before starting any).
    std::optional<int> rank;
};

// A job already in memory, as the launcher holds it: the plan's text and the cluster and model
// objects (read from texts or files by the caller), nothing read from disk.
struct JobInput
{
    std::string planText;
    std::string planName; // as errors name the plan: its file, as the person gave it
    Cluster cluster;
    std::string clusterName;        // as errors name the cluster
    std::optional<ModelSpec> model; // absent: the model the plan names, loaded by name
    int scale = 1;
    std::optional<int> rank; // as JobSource::rank
};

// A plan ready to run: read, compiled into per-rank programs, checked, and the model scaled.
// Every rank and `hetplan-cli run` load the same job the same way, so all agree on it.
struct Job
{
    Plan plan;
    std::optional<Topology> topology; // always set; Topology has no empty state
    ModelSpec model;
    ScaledModel scaled;
    JobProgram program;
};

// Errors are BadInput naming the file, the pipeline/stage or the model field and why; a
// program that fails the checker is refused too (its error names the stuck ranks and ops).
// Without `rank`, every rank's program is compiled and the whole job checked.
// `source` is read and handed to the other overload.
Result<Job> loadJob(const JobSource &source);
// Tokens per sequence before --scale: a training sample's, or a serving request's prompt and
// output (the KV cache's positions per batch slot).
int workloadSeqLen(const Workload &workload);
Result<Job> loadJob(const JobInput &input);

} // namespace hetplan::runtime
