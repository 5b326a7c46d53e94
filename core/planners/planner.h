#pragma once

#include "core/base/result.h"
#include "core/plan/estimate.h"
#include "core/plan/plan.h"

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

struct Problem;
class CostModel;

enum class PlannerKind { HexiScale, Metis, Holmes, HexGen, Megatron, Exhaustive };

std::string_view plannerName(PlannerKind kind);
Result<PlannerKind> plannerKindFromName(std::string_view name); // error lists valid names

// One parameter struct for every planner; planner-specific knobs by name, with the
// planner's documented default when absent.
struct PlannerOptions
{
    std::uint64_t seed = 1;
    int maxIterations = 0;         // 0: the planner's default
    double timeLimitS = 0;         // 0: none
    std::optional<Plan> warmStart; // start from this plan; never return a worse one
    std::map<std::string, double> knobs;

    std::string describe() const; // one line, for logs
    // The knob `name` clamped to [lowest, highest]; absent or NaN: `fallback`.
    double knob(const std::string &name, double fallback,
                double lowest = -std::numeric_limits<double>::infinity(),
                double highest = std::numeric_limits<double>::infinity()) const;
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

struct PlanSearch
{
    Plan plan;
    Evaluation evaluation;
    std::vector<TracePoint> trace; // best cost after each iteration
    double planningS = 0;
    bool stoppedEarly = false; // a stop was requested; plan is the best so far
};

// A planner is a cancellable function behind a small interface: plan() checks the input,
// runs planImpl(), then checks the result against the core validator, so no planner can
// hand out an invalid or out-of-memory plan.
class Planner
{
public:
    virtual ~Planner() = default;
    virtual PlannerKind kind() const = 0;
    std::string_view name() const { return plannerName(kind()); }

    Result<PlanSearch> plan(const Problem &problem, const CostModel &costModel,
                            const PlannerOptions &options, std::stop_token stop,
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
