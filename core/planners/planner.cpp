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
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <mutex>
#include <span>
#include <thread>

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

// The one place the time limit is enforced: a token that fires when the caller's does or when
// the deadline passes, so planners watch a single token and never read a clock for it.
class StopOrDeadline
{
public:
    StopOrDeadline(const std::stop_token &caller, double timeLimitS)
        : m_forward(caller, [this] { m_source.request_stop(); })
    {
        if (timeLimitS <= 0)
            return;
        const auto deadline = std::chrono::steady_clock::now()
                              + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                  std::chrono::duration<double>(timeLimitS));
        m_watch = std::jthread([this, deadline](const std::stop_token &finished) {
            std::mutex mutex;
            std::condition_variable_any wake;
            std::unique_lock lock(mutex);
            wake.wait_until(lock, finished, deadline, [] { return false; });
            if (!finished.stop_requested()) {
                m_deadlinePassed = true;
                m_source.request_stop();
            }
        });
    }
    StopOrDeadline(const StopOrDeadline &) = delete;
    StopOrDeadline &operator=(const StopOrDeadline &) = delete;

    std::stop_token token() const { return m_source.get_token(); }
    void finish()
    {
        if (m_watch.joinable()) {
            m_watch.request_stop();
            m_watch.join();
        }
    }
    bool deadlinePassed() const { return m_deadlinePassed; }

private:
    std::stop_source m_source;
    std::stop_callback<std::function<void()>> m_forward;
    std::atomic<bool> m_deadlinePassed{false};
    std::jthread m_watch;
};

// The machines (with GPUs) grouped into parts that no path joins: one part for a connected
// cluster.
std::vector<std::vector<int>> connectedParts(const Topology &topology)
{
    const int machines = int(topology.cluster().machines.size());
    std::vector<int> partOf(std::size_t(machines), -1);
    std::vector<std::vector<int>> parts;
    for (int m = 0; m < machines; ++m) {
        if (partOf[std::size_t(m)] >= 0 || topology.cluster().machines[std::size_t(m)].count <= 0)
            continue;
        partOf[std::size_t(m)] = int(parts.size());
        parts.push_back({m});
        for (std::size_t next = 0; next < parts.back().size(); ++next) {
            const int gpu = topology.firstGpuOf(parts.back()[next]);
            for (int other = 0; other < machines; ++other)
                if (partOf[std::size_t(other)] < 0
                    && topology.cluster().machines[std::size_t(other)].count > 0
                    && topology.connected(gpu, topology.firstGpuOf(other))) {
                    partOf[std::size_t(other)] = int(parts.size()) - 1;
                    parts.back().push_back(other);
                }
        }
    }
    return parts;
}

// "no plan fits" on a cluster in pieces is first of all about the pieces: say so, and what
// to do, instead of a memory figure that is not the reason.
Error explainDisconnected(const Topology &topology, PlannerKind kind, const Error &error)
{
    const std::vector<std::vector<int>> parts = connectedParts(topology);
    if (error.kind != ErrorKind::NoPlanFits || parts.size() < 2)
        return error;
    std::string pieces;
    for (std::size_t p = 0; p < parts.size() && p < 4; ++p) {
        pieces += (p ? "; " : "") + std::string("{");
        for (std::size_t i = 0; i < parts[p].size() && i < 4; ++i)
            pieces += (i ? ", " : "") + topology.cluster().machines[std::size_t(parts[p][i])].name;
        pieces += parts[p].size() > 4 ? ", ...}" : "}";
    }
    return Error{ErrorKind::NoPlanFits,
                 "cluster '" + topology.cluster().name + "' is disconnected: its machines form "
                     + std::to_string(parts.size()) + " parts with no link between them (" + pieces
                     + "); planner '" + std::string(plannerName(kind))
                     + "' found no plan on it. Link the parts, plan one part as its own "
                       "cluster, or use --planner holmes, which can use one part ("
                     + error.message + ")"};
}

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

Status checkExcludedGpus(const Topology &topology, const std::vector<int> &excluded)
{
    std::vector<char> gone(std::size_t(topology.gpuCount()), 0);
    for (int g : excluded) {
        if (g < 0 || g >= topology.gpuCount())
            return badInput("GPUs to leave out: index " + std::to_string(g)
                            + " is not a GPU of cluster '" + topology.cluster().name + "' (it has "
                            + std::to_string(topology.gpuCount()) + ")");
        gone[std::size_t(g)] = 1;
    }
    if (!excluded.empty() && std::find(gone.begin(), gone.end(), 0) == gone.end())
        return badInput("no GPUs left to plan on: all " + std::to_string(gone.size())
                        + " GPUs of cluster '" + topology.cluster().name
                        + "' are excluded; leave at least one");
    return okStatus();
}

// A training search that found nothing should say which GPUs ran out of memory and by how
// much. A planner that kept its closest candidate attaches it (Error::noFit); for one that did
// not, the Megatron baseline, which enumerates every symmetric layout, names its closest one.
// Not for a cluster in pieces: explainDisconnected has said what is wrong there.
Error withClosestFit(Error error, const Problem &problem, const CostModel &costModel,
                     PlannerKind kind, double timeLeftS, const std::stop_token &stop)
{
    if (error.kind != ErrorKind::NoPlanFits || error.noFit || kind == PlannerKind::Megatron
        || problem.workload.mode != Mode::Train || connectedParts(problem.topology).size() > 1)
        return error;
    PlannerOptions options;
    options.timeLimitS = timeLeftS;
    NullProgress quiet;
    const Result<PlanSearch> baseline
        = MegatronPlanner().plan(problem, costModel, options, stop, quiet);
    if (!baseline && baseline.error().noFit) {
        error.message += "; " + baseline.error().message;
        error.noFit = baseline.error().noFit;
    }
    return error;
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

std::string PlannerOptions::describe(PlannerKind kind) const
{
    std::string text = "seed=" + std::to_string(seed);
    text += " max_iterations=" + (maxIterations > 0 ? std::to_string(maxIterations) : "default");
    text += " time_limit=" + (timeLimitS > 0 ? number(timeLimitS) + "s" : "none");
    text += std::string(" warm_start=") + (warmStart ? "yes" : "no");
    if (!excludedGpus.empty())
        text += " excluded_gpus=" + std::to_string(excludedGpus.size());
    return text + describeParameters(parameters, kind);
}

Result<PlanSearch> Planner::plan(const Problem &problem, const CostModel &costModel,
                                 const PlannerOptions &options, const std::stop_token &stop,
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
    if (Status excluded = checkExcludedGpus(problem.topology, options.excludedGpus); !excluded)
        return excluded.error();
    if (Status settings = checkPlannerParameters(options.parameters, kind()); !settings)
        return settings.error();

    const auto started = std::chrono::steady_clock::now();
    StopOrDeadline limit(stop, options.timeLimitS);
    Result<PlanSearch> result = planImpl(problem, costModel, options, limit.token(), progress);
    limit.finish();
    if (!result) {
        if (result.error().kind == ErrorKind::Cancelled && limit.deadlinePassed())
            return Error{ErrorKind::Cancelled, "the time limit of " + number(options.timeLimitS)
                                                   + " s passed before any plan was found"};
        double timeLeftS = 0; // none: no limit
        if (options.timeLimitS > 0)
            timeLeftS = std::max(1e-3, options.timeLimitS - secondsSince(started));
        return withClosestFit(explainDisconnected(problem.topology, kind(), result.error()),
                              problem, costModel, kind(), timeLeftS, stop);
    }
    PlanSearch &search = result.value();
    search.planningS = secondsSince(started);
    search.stoppedEarly = limit.token().stop_requested();
    search.timeLimitReached = limit.deadlinePassed();

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
