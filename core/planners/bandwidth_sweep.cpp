#include "core/planners/bandwidth_sweep.h"

namespace hetplan {

Result<Problem> withCluster(const Problem &problem, const Cluster &cluster)
{
    auto topology = problem.topology.rebuilt(cluster);
    if (!topology)
        return topology.error();
    return Problem{std::move(topology).value(), problem.model, problem.workload};
}

Cluster withBandwidth(Cluster cluster, std::span<const BandwidthTarget> targets,
                      double bandwidthGBps)
{
    for (const BandwidthTarget &target : targets)
        cluster = withBandwidth(std::move(cluster), target, bandwidthGBps);
    return cluster;
}

namespace {

SweepPoint sweepPoint(const Problem &problem, const CostModel &costModel, const Plan &plan,
                      const Planner *planner, const SweepRequest &request, double bandwidthGBps,
                      const std::stop_token &stop)
{
    SweepPoint point;
    point.bandwidthGBps = bandwidthGBps;
    auto changed = withCluster(
        problem, withBandwidth(problem.topology.cluster(), request.targets, bandwidthGBps));
    if (!changed) {
        point.error = changed.error().message;
        return point;
    }
    const Evaluation current = costModel.evaluate(*changed, plan);
    point.currentPlanS = current.iterationS;
    point.currentPlanMfu = current.mfu;
    if (!planner)
        return point;
    PlannerOptions options = request.options;
    options.warmStart = plan;
    NullProgress quiet;
    auto replanned = planner->plan(*changed, costModel, options, stop, quiet);
    if (!replanned) {
        point.error = replanned.error().message;
        return point;
    }
    point.replannedS = replanned->evaluation.iterationS;
    point.replannedMfu = replanned->evaluation.mfu;
    point.replannedPipelines = int(replanned->plan.pipelines.size());
    point.strategyChanged = !replanned->plan.sameLayout(plan);
    return point;
}

} // namespace

std::vector<SweepPoint> sweepBandwidth(const Problem &problem, const CostModel &costModel,
                                       const Plan &plan, const SweepRequest &request,
                                       const std::stop_token &stop,
                                       const std::function<void(const SweepPoint &)> &onPoint)
{
    std::vector<SweepPoint> points;
    auto planner = makePlanner(request.planner);
    for (double bandwidthGBps : request.bandwidthsGBps) {
        if (stop.stop_requested())
            break;
        SweepPoint point = sweepPoint(problem, costModel, plan, planner ? planner->get() : nullptr,
                                      request, bandwidthGBps, stop);
        if (!planner)
            point.error = planner.error().message;
        points.push_back(std::move(point));
        if (onPoint)
            onPoint(points.back());
    }
    return points;
}

} // namespace hetplan
