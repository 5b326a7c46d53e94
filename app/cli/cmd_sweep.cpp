#include "app/cli/commands.h"
#include "app/cli/planning.h"
#include "app/cli/report.h"
#include "app/cli/setup.h"
#include "app/cli/signals.h"
#include "core/cost/cost_model.h"
#include "core/io/report_json.h"
#include "core/planners/bandwidth_sweep.h"

#include <cmath>
#include <cstdio>
#include <iostream>

namespace hetplan::cli {
namespace {

// Which bandwidths a sweep sets: the links between two nodes, every network link, or every
// machine's intra link.
struct SweepTarget
{
    std::vector<BandwidthTarget> targets;
    std::string label;
};

// "--link A-B": node names may contain '-', so try every split that names two nodes.
Result<SweepTarget> linkTarget(const Cluster &cluster, const std::string &spec)
{
    for (size_t dash = spec.find('-'); dash != std::string::npos; dash = spec.find('-', dash + 1))
        if (auto links = linksBetween(cluster, spec.substr(0, dash), spec.substr(dash + 1));
            !links.empty())
            return SweepTarget{std::move(links), "link " + spec};
    return badInput("--link: no link '" + spec + "' in cluster '" + cluster.name
                    + "'; write it as A-B with the names of its two ends");
}

Result<SweepTarget> targetFromArgs(const Args &args, const Cluster &cluster)
{
    const int chosen = int(args.has("link")) + int(args.has("inter")) + int(args.has("intra"));
    if (chosen != 1)
        return badInput("sweep: choose exactly one of --link A-B, --inter, --intra");
    if (const auto link = args.value("link"))
        return linkTarget(cluster, *link);
    if (args.has("intra"))
        return SweepTarget{{{BandwidthTarget::Kind::Intra}}, "every intra-machine link"};
    if (cluster.links.empty())
        return badInput("--inter: cluster '" + cluster.name + "' has no network links");
    return SweepTarget{{{BandwidthTarget::Kind::Network}}, "every network link"};
}

} // namespace

int runSweep(const std::vector<std::string> &words)
{
    auto run = prepare(words, {"link", "bandwidth"}, {"inter", "intra"});
    if (!run)
        return fail(run.error());
    const Args &args = run->args;
    const Problem &problem = run->problem;
    const CostModel &costModel = *run->costModel;
    const PlannerKind kind = run->planner;
    const PlannerOptions &options = run->options;
    auto target = targetFromArgs(args, problem.topology.cluster());
    if (!target)
        return fail(target.error());
    auto bandwidths = args.numberList("bandwidth", 1e-6, 1e6);
    if (!bandwidths)
        return fail(bandwidths.error());
    if (bandwidths->empty())
        return fail(badInput("--bandwidth is required: GB/s values, e.g. 0.5,1,2,5"));
    // The plan for the cluster as drawn; each point re-evaluates it and re-plans from it.
    const StoppableScope stoppable;
    auto base = runPlanner(kind, problem, costModel, options);
    if (receivedSignal() != 0) {
        std::cerr << "hetplan-cli: stopped by " << receivedSignalName() << '\n';
        return signalExitCode();
    }
    if (!base)
        return fail(base.error());

    const bool json = args.has("json");
    std::vector<SweepPoint> points;
    if (!json)
        std::printf("Sweep of %s (planner %s, cost model %s)\n%12s %16s %16s %8s  %s\n",
                    target->label.c_str(), std::string(plannerName(kind)).c_str(),
                    std::string(costModel.name()).c_str(), "GB/s", "current plan", "re-planned",
                    "MFU", "strategy");
    const Plan &plan = base->plan;
    const SweepRequest request{kind, options, target->targets, *bandwidths};
    sweepBandwidth(problem, costModel, plan, request, stopToken(), [&](const SweepPoint &p) {
        if (json) {
            points.push_back(p);
            return;
        }
        const std::string mfu
            = p.replannedS ? std::to_string(std::lround(100 * p.replannedMfu)) + " %" : "-";
        std::printf("%12.6g %16s %16s %8s  %s\n", p.bandwidthGBps,
                    formatSeconds(p.currentPlanS).c_str(),
                    p.replannedS ? formatSeconds(*p.replannedS).c_str() : "-", mfu.c_str(),
                    p.replannedS ? (p.strategyChanged ? "changed" : "same") : p.error.c_str());
    });
    if (json)
        std::cout << sweepReportJson(target->label, points) << '\n';
    if (receivedSignal() != 0) {
        std::cerr << "hetplan-cli: stopped by " << receivedSignalName() << '\n';
        return signalExitCode();
    }
    return 0;
}

} // namespace hetplan::cli
