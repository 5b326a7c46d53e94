#include "results/bandwidth_whatif.h"

#include "core/catalog/catalog.h"

namespace hetplan::gui {

Result<Problem> withCluster(const Problem &problem, const Cluster &cluster)
{
    auto topology = Topology::build(cluster, GpuCatalog::builtin());
    if (!topology)
        return topology.error();
    return Problem{std::move(topology).value(), problem.model, problem.workload};
}

std::vector<SweepPoint> sweepBandwidth(const Problem &problem, const CostModel &costModel,
                                       PlannerKind planner, const Plan &plan,
                                       const BandwidthTarget &target,
                                       std::span<const double> bandwidthsGBps, std::stop_token stop,
                                       const std::function<void(int done)> &onPoint)
{
    std::vector<SweepPoint> points;
    auto maker = makePlanner(planner);
    for (double bandwidthGBps : bandwidthsGBps) {
        if (stop.stop_requested())
            break;
        SweepPoint point;
        point.bandwidthGBps = bandwidthGBps;
        auto changed = withCluster(
            problem, withBandwidth(problem.topology.cluster(), target, bandwidthGBps));
        if (!changed) {
            point.error = changed.error().message;
            points.push_back(std::move(point));
            continue;
        }
        const Evaluation current = costModel.evaluate(*changed, plan);
        point.currentPlanS = current.iterationS;
        point.currentPlanMfu = current.mfu;
        if (!maker) {
            point.error = maker.error().message;
        } else {
            PlannerOptions options;
            options.warmStart = plan;
            NullProgress quiet;
            auto replanned = (*maker)->plan(*changed, costModel, options, stop, quiet);
            if (replanned) {
                point.replannedS = replanned->evaluation.iterationS;
                point.replannedMfu = replanned->evaluation.mfu;
                point.strategyChanged = !replanned->plan.sameLayout(plan);
            } else {
                point.error = replanned.error().message;
            }
        }
        points.push_back(std::move(point));
        if (onPoint)
            onPoint(int(points.size()));
    }
    return points;
}

} // namespace hetplan::gui
