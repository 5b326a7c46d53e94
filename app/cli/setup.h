#pragma once

#include "app/cli/args.h"
#include "app/cli/workload_origin.h"
#include "core/cost/cost_model.h"
#include "core/cost/problem.h"
#include "core/planners/planner.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace hetplan::cli {

// Options every problem-building subcommand accepts.
std::set<std::string> problemOptions();

// What a subcommand knows before reading the flags (e.g. a plan file's model and workload).
struct ProblemDefaults
{
    std::optional<std::string> model;
    std::optional<Workload> workload;
    std::string workloadSource; // where `workload` came from, e.g. "plan file p.json"
};

// --cluster NAME|FILE, resolved to a Topology (GPU types checked against the catalog); a
// cluster without GPUs is refused here, since every command that takes one needs GPUs. A
// local file wins over a bundled example of the same name (with a note on stderr).
Result<Topology> topologyFromArgs(const Args &args,
                                  const std::optional<std::string> &fallbackCluster = {});

// Cluster (--cluster, bundled name or file), model (--model), workload (--workload file, else
// the bundled "<cluster>.workload.json" when the cluster is a bundled example, else defaults),
// then the workload flags (--global-batch, --seq-len, ...) override single fields. `origin`,
// when given, receives where each part of the workload came from.
Result<Problem> buildProblem(const Args &args, const ProblemDefaults &defaults = {},
                             WorkloadOrigin *origin = nullptr);
Result<Problem> buildProblem(Topology topology, const Args &args,
                             const ProblemDefaults &defaults = {},
                             WorkloadOrigin *origin = nullptr);

// What a planning subcommand (plan, compare, sweep) starts from: its parsed options, the
// problem, the cost model, the planner (--planner, else the mode's default; compare's
// --planners), --seed, --time-limit and --knob name=value[,name=value...] (each planner's
// parameters, planner_params.h: unknown names and out-of-range values are errors).
struct Invocation
{
    Args args;
    Problem problem;
    std::unique_ptr<CostModel> costModel;
    PlannerKind planner = PlannerKind::HexiScale;
    std::vector<PlannerKind> planners; // what the command runs: {planner}, or --planners
    PlannerOptions options;            // --seed, --time-limit and --knob; no warm start
    WorkloadOrigin workloadOrigin;
};
Result<Invocation> prepare(const std::vector<std::string> &words,
                           std::set<std::string> extraOptions,
                           std::set<std::string> extraSwitches = {});

// --plan FILE, read and resolved against --cluster, else the cluster the plan names.
struct PlanFromArgs
{
    std::string path;
    Plan plan;
    Topology topology;
};
Result<PlanFromArgs> planFromArgs(const Args &args);

// Maps an Error to the CLI's exit code contract: 2 bad input (or a request the planner does
// not handle, whose message says what to use instead), 3 no plan fits, 1 otherwise.
int exitCodeFor(const Error &error);
// Prints "hetplan-cli: error: …" on stderr and returns exitCodeFor(error).
int fail(const Error &error);
// Prints "hetplan-cli: warning: …" on stderr; nothing for an empty message.
void warn(const std::string &message);

// --cost-model NAME, default "hetplan".
Result<std::unique_ptr<CostModel>>
costModelFromArgs(const Args &args, const std::optional<std::string> &fallback = {});

} // namespace hetplan::cli
