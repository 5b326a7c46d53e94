#include "core/cost/measured_plan.h"

#include "core/plan/plan_digest.h"
#include "core/plan/rank_layout.h"

#include <algorithm>
#include <map>
#include <utility>

namespace hetplan {
namespace {

std::string counted(std::size_t n, const char *one, const char *many)
{
    std::string text = std::to_string(n);
    text += ' ';
    text += n == 1 ? one : many;
    return text;
}

std::string stageName(int pipeline, int stage)
{
    std::string text = "pipeline ";
    text += std::to_string(pipeline);
    text += ", stage ";
    text += std::to_string(stage);
    return text;
}

// Ranks per (pipeline, stage) and stages per pipeline, of the measurement and of the plan.
struct Shape
{
    std::map<int, int> stagesOf;                        // pipeline → its stage count
    std::map<std::pair<int, int>, std::size_t> ranksOf; // (pipeline, stage) → its rank count
};

Shape measuredShape(const Measurement &measured)
{
    Shape shape;
    for (const MeasuredRank &r : measured.ranks) {
        shape.stagesOf[r.pipeline] = std::max(shape.stagesOf[r.pipeline], r.stage + 1);
        ++shape.ranksOf[{r.pipeline, r.stage}];
    }
    return shape;
}

Shape plannedShape(const std::vector<RankPlacement> &layout, const Plan &plan)
{
    Shape shape;
    for (std::size_t p = 0; p < plan.pipelines.size(); ++p)
        shape.stagesOf[int(p)] = int(plan.pipelines[p].stages.size());
    for (const RankPlacement &r : layout)
        ++shape.ranksOf[{r.pipeline, r.stage}];
    return shape;
}

// The first difference the measurement's ranks show, in the order a reader would look: the
// pipelines, their stages, the ranks of each stage, then where each rank ran.
std::string difference(const Measurement &measured, const Plan &plan, const Topology &topology)
{
    const std::vector<RankPlacement> layout = rankLayout(plan, topology);
    const Shape ran = measuredShape(measured);
    const Shape planned = plannedShape(layout, plan);
    if (ran.stagesOf.size() != planned.stagesOf.size())
        return "the measurement's plan has " + counted(ran.stagesOf.size(), "pipeline", "pipelines")
               + ", this one " + std::to_string(planned.stagesOf.size());
    for (const auto &[pipeline, stages] : planned.stagesOf) {
        const auto it = ran.stagesOf.find(pipeline);
        const int ranStages = it == ran.stagesOf.end() ? 0 : it->second;
        if (ranStages != stages)
            return "pipeline " + std::to_string(pipeline) + " has "
                   + counted(std::size_t(ranStages), "stage", "stages")
                   + " in the measurement's plan, " + std::to_string(stages) + " in this one";
    }
    for (const auto &[key, ranks] : planned.ranksOf) {
        const auto it = ran.ranksOf.find(key);
        const std::size_t ranRanks = it == ran.ranksOf.end() ? 0 : it->second;
        if (ranRanks != ranks)
            return stageName(key.first, key.second) + " has " + counted(ranRanks, "rank", "ranks")
                   + " in the measurement's plan, " + std::to_string(ranks) + " in this one";
    }
    for (const MeasuredRank &r : measured.ranks) {
        if (r.rank < 0 || std::size_t(r.rank) >= layout.size())
            continue;
        const RankPlacement &p = layout[std::size_t(r.rank)];
        if (r.gpu != p.gpuName)
            return "rank " + std::to_string(r.rank) + " ran on " + r.gpu + ", this plan puts it on "
                   + p.gpuName;
        if (r.replica != p.replica || r.tpIndex != p.tpRank)
            return "rank " + std::to_string(r.rank) + " of " + stageName(p.pipeline, p.stage)
                   + " is a different DP replica or TP shard in this plan";
    }
    return "the same ranks on the same GPUs; the layers, micro-batches, DP split or transports "
           "differ";
}

} // namespace

Result<std::string> checkMeasuredPlan(const Measurement &measured,
                                      const std::string &measurementSource, const Plan &plan,
                                      const Topology &topology, const std::string &planSource)
{
    const std::string &ran = measured.run.planDigest;
    if (ran.empty())
        return measurementSource
               + ": run.plan_digest is absent (written before measurements recorded their plan), "
                 "so it cannot be checked that it is a run of "
               + planSource;
    const std::string digest = planDigest(plan, topology);
    if (ran == digest)
        return std::string();
    return badInput(measurementSource + " is a run of another plan than " + planSource
                    + ": measured plan digest " + ran + ", this plan " + digest + " ("
                    + difference(measured, plan, topology)
                    + "); give the plan the run was made from");
}

} // namespace hetplan
