#pragma once

#include "core/base/result.h"
#include "core/plan/estimate.h"
#include "core/plan/plan.h"
#include "core/planners/planner_params.h"

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

namespace hetplan {

class Topology;

struct Problem;
class CostModel;

Result<PlannerKind> plannerKindFromName(std::string_view name); // error lists valid names

// What every planner takes: the search's bounds, a warm start, the GPUs to leave out, and
// each planner's own typed settings (planner_params.h).
struct PlannerOptions
{
    std::uint64_t seed = 1;
    int maxIterations = 0;         // 0: the planner's default
    double timeLimitS = 0;         // 0: none; enforced by Planner::plan
    std::optional<Plan> warmStart; // start from this plan; never return a worse one
    std::vector<int> excludedGpus; // flat GPU indices no plan may use (GPUs that left, HexGen §5.3)
    PlannerParameters parameters;

    // One line for logs: the bounds, then every parameter of planner `kind` with its value.
    std::string describe(PlannerKind kind) const;
};

struct Progress
{
    int iteration = 0;
    double elapsedS = 0;
    double bestCostS = 0;           // +inf until something fits
    const Plan *bestPlan = nullptr; // not owned; valid only during the call
};

// Receives progress from the planning thread; implementations must be cheap and thread-safe.
class ProgressSink
{
public:
    virtual ~ProgressSink() = default;
    virtual void report(const Progress &progress) = 0;
};

class NullProgress final : public ProgressSink
{
public:
    void report(const Progress &) override {}
};

struct TracePoint
{
    int iteration = 0;
    double elapsedS = 0;
    double bestCostS = 0;
};

// GPUs a plan leaves idle, machine class by machine class, and what the planner found adding
// them would do (docs/planners.md, "Idle GPUs"). Machines with the same GPU type and the same
// number of idle GPUs form a class; one of them is tried.
struct IdleGpus
{
    std::vector<int> machines; // indices into the cluster's machines
    int gpusPerMachine = 0;    // idle GPUs on each
    std::string gpuType;
    // The objective with one machine's idle GPUs added the best way found, and that way in
    // words ("a stage at position 3 of pipeline 2"); +infinity and why not when none was found.
    double withOneAddedS = 0;
    std::string bestUse;
    std::string whyNot;
};

struct PlanSearch
{
    Plan plan;
    Evaluation evaluation;
    std::vector<TracePoint> trace; // best cost after each iteration
    double planningS = 0;
    bool stoppedEarly = false;      // a stop or the time limit ended it; plan is the best so far
    bool timeLimitReached = false;  // of those, the time limit
    std::vector<IdleGpus> idleGpus; // the default planner's account of the GPUs it left idle
};

// The idle GPUs of `search` in a few lines for a report: which, and why they stay idle (each
// line starts with two spaces and ends with a newline). Empty when the planner reported none.
std::string describeIdleGpus(const PlanSearch &search, const Topology &topology);

// A planner is a cancellable function behind a small interface: plan() checks the input,
// runs planImpl() with a stop token that fires on the caller's stop or at the time limit
// (planners only watch the token), then checks the result against the core validator, so no
// planner can hand out an invalid or out-of-memory plan.
class Planner
{
public:
    virtual ~Planner() = default;
    virtual PlannerKind kind() const = 0;
    std::string_view name() const { return plannerName(kind()); }

    Result<PlanSearch> plan(const Problem &problem, const CostModel &costModel,
                            const PlannerOptions &options, const std::stop_token &stop,
                            ProgressSink &progress) const;

private:
    virtual Result<PlanSearch> planImpl(const Problem &problem, const CostModel &costModel,
                                        const PlannerOptions &options, std::stop_token stop,
                                        ProgressSink &progress) const = 0;
};

// Planners not yet built return an Unsupported error naming what exists.
Result<std::unique_ptr<Planner>> makePlanner(PlannerKind kind);

} // namespace hetplan

namespace hetplan {

// What `plan` runs when no planner is named.
PlannerKind defaultPlanner(Mode mode);
// The planners `compare` runs for a mode, in display order.
std::vector<PlannerKind> plannersFor(Mode mode);

} // namespace hetplan
