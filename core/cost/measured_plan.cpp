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

// "<what> has <ran> in the measurement's plan, <planned> in this one".
std::string hasInBoth(std::string what, const std::string &ran, std::size_t planned)
{
    what += " has ";
    what += ran;
    what += " in the measurement's plan, ";
    what += std::to_string(planned);
    what += " in this one";
    return what;
}

std::string rankName(int rank)
{
    std::string text = "rank ";
    text += std::to_string(rank);
    return text;
}

// The first difference the measurement's ranks show, in the order a reader would look: the
// pipelines, their stages, the ranks of each stage, then where each rank ran.
std::string difference(const Measurement &measured, const Plan &plan, const Topology &topology)
{
    const std::vector<RankPlacement> layout = rankLayout(plan, topology);
    const Shape ran = measuredShape(measured);
    const Shape planned = plannedShape(layout, plan);
    if (ran.stagesOf.size() != planned.stagesOf.size()) {
        std::string text = "the measurement's plan has ";
        text += counted(ran.stagesOf.size(), "pipeline", "pipelines");
        text += ", this one ";
        text += std::to_string(planned.stagesOf.size());
        return text;
    }
    for (const auto &[pipeline, stages] : planned.stagesOf) {
        const auto it = ran.stagesOf.find(pipeline);
        const std::size_t ranStages = it == ran.stagesOf.end() ? 0 : std::size_t(it->second);
        if (ranStages != std::size_t(stages)) {
            std::string what = "pipeline ";
            what += std::to_string(pipeline);
            return hasInBoth(std::move(what), counted(ranStages, "stage", "stages"),
                             std::size_t(stages));
        }
    }
    for (const auto &[key, ranks] : planned.ranksOf) {
        const auto it = ran.ranksOf.find(key);
        const std::size_t ranRanks = it == ran.ranksOf.end() ? 0 : it->second;
        if (ranRanks != ranks)
            return hasInBoth(stageName(key.first, key.second), counted(ranRanks, "rank", "ranks"),
                             ranks);
    }
    for (const MeasuredRank &r : measured.ranks) {
        if (r.rank < 0 || std::size_t(r.rank) >= layout.size())
            continue;
        const RankPlacement &p = layout[std::size_t(r.rank)];
        std::string text = rankName(r.rank);
        if (r.gpu != p.gpuName) {
            text += " ran on ";
            text += r.gpu;
            text += ", this plan puts it on ";
            text += p.gpuName;
            return text;
        }
        if (r.replica != p.replica || r.tpIndex != p.tpRank) {
            text += " of ";
            text += stageName(p.pipeline, p.stage);
            text += " is another DP replica or TP shard in this plan";
            return text;
        }
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
    if (ran.empty()) {
        std::string warning = measurementSource;
        warning += ": run.plan_digest is absent (written before measurements recorded their "
                   "plan), so it cannot be checked that it is a run of ";
        warning += planSource;
        return warning;
    }
    const std::string digest = planDigest(plan, topology);
    if (ran == digest)
        return std::string();
    return otherPlanError(measurementSource, ran, planSource, digest,
                          difference(measured, plan, topology));
}

Error otherPlanError(const std::string &measurementSource, const std::string &ranDigest,
                     const std::string &planSource, const std::string &planDigest,
                     const std::string &difference)
{
    std::string message = measurementSource;
    message += " is a run of another plan than ";
    message += planSource;
    message += ": measured plan digest ";
    message += ranDigest;
    message += ", this plan ";
    message += planDigest;
    message += " (";
    message += difference;
    message += "); give the plan the run was made from";
    return badInput(std::move(message));
}

} // namespace hetplan
