// The planner front door: names, the factory, and the checks every planner's result passes.
#include "core/planners/planner.h"

#include "core/cost/cost_model.h"
#include "core/cost/problem.h"
#include "core/cost/validator.h"
#include "core/io/cluster_check.h"
#include "core/planners/exhaustive.h"
#include "core/planners/hexgen/hexgen_planner.h"
#include "core/planners/hexiscale/hexiscale_planner.h"
#include "core/planners/holmes/holmes_planner.h"
#include "core/planners/megatron.h"
#include "core/planners/metis/metis_planner.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <span>

namespace hetplan {

namespace {

constexpr std::array kAllPlanners{PlannerKind::HexiScale, PlannerKind::Metis,
                                  PlannerKind::Holmes,    PlannerKind::HexGen,
                                  PlannerKind::Megatron,  PlannerKind::Exhaustive};

std::string nameList(std::span<const PlannerKind> kinds)
{
    std::string text;
    for (PlannerKind kind : kinds)
        text += (text.empty() ? "" : ", ") + std::string(plannerName(kind));
    return text;
}

// HexGen serves inference; the training planners do not place serving replicas. The
// exhaustive oracle handles whatever its implementation supports and says so itself.
bool supportsMode(PlannerKind kind, Mode mode)
{
    switch (kind) {
    case PlannerKind::HexGen:
        return mode == Mode::Infer;
    case PlannerKind::Exhaustive:
        return true;
    case PlannerKind::HexiScale:
    case PlannerKind::Metis:
    case PlannerKind::Holmes:
    case PlannerKind::Megatron:
        return mode == Mode::Train;
    }
    return false;
}

std::string number(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

} // namespace

std::string_view plannerName(PlannerKind kind)
{
    switch (kind) {
    case PlannerKind::HexiScale:
        return "hexiscale";
    case PlannerKind::Metis:
        return "metis";
    case PlannerKind::Holmes:
        return "holmes";
    case PlannerKind::HexGen:
        return "hexgen";
    case PlannerKind::Megatron:
        return "megatron";
    case PlannerKind::Exhaustive:
        return "exhaustive";
    }
    return "unknown";
}

Result<PlannerKind> plannerKindFromName(std::string_view name)
{
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (PlannerKind kind : kAllPlanners)
        if (lower == plannerName(kind))
            return kind;
    return badInput("unknown planner '" + std::string(name)
                    + "'; valid: " + nameList(kAllPlanners));
}

double PlannerOptions::knob(const std::string &name, double fallback, double lowest,
                            double highest) const
{
    const auto it = knobs.find(name);
    if (it == knobs.end() || std::isnan(it->second))
        return fallback;
    return std::clamp(it->second, lowest, highest);
}

std::string PlannerOptions::describe() const
{
    std::string text = "seed=" + std::to_string(seed);
    text += " max_iterations=" + (maxIterations > 0 ? std::to_string(maxIterations) : "default");
    text += " time_limit=" + (timeLimitS > 0 ? number(timeLimitS) + "s" : "none");
    text += std::string(" warm_start=") + (warmStart ? "yes" : "no");
    for (const auto &[knob, value] : knobs)
        text += " " + knob + "=" + number(value);
    return text;
}

Result<PlanSearch> Planner::plan(const Problem &problem, const CostModel &costModel,
                                 const PlannerOptions &options, std::stop_token stop,
                                 ProgressSink &progress) const
{
    const Mode mode = problem.workload.mode;
    if (!supportsMode(kind(), mode)) {
        const bool training = mode == Mode::Train;
        return Error{ErrorKind::Unsupported,
                     "planner '" + std::string(name()) + "' plans "
                         + (training ? "inference" : "training") + " only; the workload is "
                         + (training ? "training" : "inference") + " (use "
                         + (training ? "hexiscale, metis, holmes or megatron" : "hexgen") + ")"};
    }
    if (Status gpus = checkHasGpus(problem.topology); !gpus)
        return gpus.error();

    const auto started = std::chrono::steady_clock::now();
    Result<PlanSearch> result = planImpl(problem, costModel, options, stop, progress);
    if (!result)
        return result;
    PlanSearch &search = result.value();
    search.planningS
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    search.stoppedEarly = stop.stop_requested();

    Plan &plan = search.plan;
    plan.workload = problem.workload;
    plan.planner = std::string(name());
    plan.costModel = std::string(costModel.name());
    plan.cluster = problem.topology.cluster().name;
    plan.model = problem.model.name;

    // The validator is the judge: a planner handing out an invalid plan is a bug in it.
    const std::vector<PlanIssue> issues = validatePlan(problem, plan, &costModel);
    if (!issues.empty()) {
        std::string message = "planner '" + std::string(name())
                              + "' produced an invalid plan (a bug in the planner):";
        for (const PlanIssue &issue : issues)
            message += "\n  " + issue.message;
        return Error{ErrorKind::Internal, message};
    }
    search.evaluation = costModel.evaluate(problem, plan);
    plan.estimate = search.evaluation;
    return result;
}

Result<std::unique_ptr<Planner>> makePlanner(PlannerKind kind)
{
    switch (kind) {
    case PlannerKind::Megatron:
        return std::unique_ptr<Planner>(std::make_unique<MegatronPlanner>());
    case PlannerKind::HexiScale:
        return std::unique_ptr<Planner>(std::make_unique<HexiScalePlanner>());
    case PlannerKind::Exhaustive:
        return std::unique_ptr<Planner>(std::make_unique<ExhaustivePlanner>());
    case PlannerKind::Metis:
        return std::unique_ptr<Planner>(std::make_unique<MetisPlanner>());
    case PlannerKind::HexGen:
        return std::unique_ptr<Planner>(std::make_unique<HexGenPlanner>());
    case PlannerKind::Holmes:
        return std::unique_ptr<Planner>(std::make_unique<HolmesPlanner>());
    }
    return Error{ErrorKind::Internal,
                 "no planner for kind " + std::to_string(static_cast<int>(kind))};
}

} // namespace hetplan
