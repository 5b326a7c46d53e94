#include "core/cost/rank_phases.h"

#include "core/plan/plan.h"
#include "core/sim/pipeline_sim.h"

#include <algorithm>
#include <cassert>

namespace hetplan {
namespace {

// Per micro-batch hops of stage j of a pipeline, as its TP leader sees them.
HopPhases stageHops(const std::vector<StageTiming> &stages, std::size_t j)
{
    HopPhases hops;
    if (j + 1 < stages.size()) {
        hops.outNextS = stages[j].hopForwardS;
        hops.inNextS = stages[j].hopS - stages[j].hopForwardS;
    }
    if (j > 0) {
        hops.inPrevS = stages[j - 1].hopForwardS;
        hops.outPrevS = stages[j - 1].hopS - stages[j - 1].hopForwardS;
    }
    return hops;
}

HopPhases times(const HopPhases &hops, double factor)
{
    return {hops.inPrevS * factor, hops.outPrevS * factor, hops.inNextS * factor,
            hops.outNextS * factor};
}

// When each stage of a pipeline runs its last operation under 1F1B.
std::vector<double> stageEndsS(const std::vector<StageTiming> &stages, int microBatches)
{
    std::vector<StageWork> work;
    for (std::size_t j = 0; j < stages.size(); ++j) {
        const HopPhases hops = stageHops(stages, j);
        work.push_back({stages[j].forwardS, stages[j].backwardS, hops.outNextS, hops.outPrevS});
    }
    std::vector<double> ends(stages.size(), 0.0);
    for (const Interval &i : simulate1F1B(work, microBatches).intervals)
        ends[std::size_t(i.stage)] = std::max(ends[std::size_t(i.stage)], i.endS);
    return ends;
}

bool sharesGradients(const Plan &plan, std::size_t p, std::size_t j, std::size_t q, std::size_t k)
{
    const std::vector<Stage> &a = plan.pipelines[p].stages;
    const std::vector<Stage> &b = plan.pipelines[q].stages;
    const bool layers = a[j].layerBegin < b[k].layerEnd && b[k].layerBegin < a[j].layerEnd;
    const bool embedding = j == 0 && k == 0;
    const bool head = j + 1 == a.size() && k + 1 == b.size();
    return layers || embedding || head;
}

} // namespace

double exchangeTimeS(const HopPhases &h, int stage, int stageCount, int microBatches)
{
    const int warmUp = std::min(stageCount - 1 - stage, microBatches);
    const int steady = microBatches - warmUp;
    double totalS = warmUp * (h.inPrevS + h.outNextS + h.inNextS + h.outPrevS);
    if (steady > 0)
        totalS += h.inPrevS + steady * std::max(h.outNextS, h.inNextS) + h.outPrevS
                  + (steady - 1) * std::max(h.outPrevS, h.inPrevS);
    return totalS;
}

bool predictRankPhases(const Plan &plan, const Evaluation &evaluation, std::span<RankPhases> ranks)
{
    if (evaluation.pipelines.size() != plan.pipelines.size())
        return false;
    for (const RankPhases &r : ranks)
        if (r.pipeline < 0 || std::size_t(r.pipeline) >= plan.pipelines.size() || r.stage < 0
            || std::size_t(r.stage) >= evaluation.pipelines[std::size_t(r.pipeline)].stages.size()
            || std::size_t(r.stage) >= plan.pipelines[std::size_t(r.pipeline)].stages.size())
            return false;
    std::vector<std::vector<double>> ends;
    for (std::size_t p = 0; p < plan.pipelines.size(); ++p)
        ends.push_back(stageEndsS(evaluation.pipelines[p].stages,
                                  std::max(plan.pipelines[p].microBatches, 1)));

    for (RankPhases &r : ranks) {
        const auto p = std::size_t(r.pipeline);
        const auto j = std::size_t(r.stage);
        const std::vector<StageTiming> &stages = evaluation.pipelines[p].stages;
        const int m = std::max(plan.pipelines[p].microBatches, 1);
        const StageTiming &t = stages[j];
        HopPhases perMicroBatch = stageHops(stages, j);
        if (r.tpIndex > 0) // only the TP leader sends; the others receive its broadcast
            perMicroBatch.outNextS = perMicroBatch.outPrevS = 0;

        r.hops = times(perMicroBatch, m);
        Breakdown &b = r.breakdown = {};
        b.computeS = m * t.computeS;
        b.tpCommS = m * t.tpCommS;
        b.ppCommS = exchangeTimeS(perMicroBatch, r.stage, int(stages.size()), m);
        b.dpCommS = t.dpCommS;
        const double endS = ends[p][j];
        // Idle before the last operation is waiting plus the receives; the gradient sync waits
        // for the last of the stages it shares gradients with to arrive there: at its end less
        // its optimizer step, which the schedule spreads over the backwards and the runtime
        // runs after the sync.
        const auto arrivalS = [&](std::size_t q, std::size_t k) {
            return ends[q][k]
                   - evaluation.pipelines[q].stages[k].optimizerS
                         * std::max(plan.pipelines[q].microBatches, 1);
        };
        double waitS = 0;
        if (t.dpCommS > 0)
            for (std::size_t q = 0; q < plan.pipelines.size(); ++q)
                for (std::size_t k = 0; k < ends[q].size(); ++k)
                    if (sharesGradients(plan, p, j, q, k))
                        waitS = std::max(waitS, arrivalS(q, k) - arrivalS(p, j));
        b.bubbleS = std::max(0.0, endS - b.computeS - b.tpCommS - b.ppCommS) + waitS;
        r.wallS = b.totalS();
    }
    return true;
}

std::vector<RankPhases> planRankPhases(const Plan &plan, const Evaluation &evaluation)
{
    std::vector<RankPhases> ranks;
    for (std::size_t p = 0; p < plan.pipelines.size(); ++p)
        for (std::size_t j = 0; j < plan.pipelines[p].stages.size(); ++j) {
            const Stage &stage = plan.pipelines[p].stages[j];
            for (std::size_t i = 0; i < stage.gpus.size(); ++i) {
                RankPhases r;
                r.rank = int(ranks.size());
                r.pipeline = int(p);
                r.stage = int(j);
                r.tpIndex = int(i % std::size_t(std::max(stage.tp, 1)));
                ranks.push_back(r);
            }
        }
    if (!predictRankPhases(plan, evaluation, ranks))
        ranks.clear();
    return ranks;
}

std::size_t endingRank(std::span<const RankPhases> ranks)
{
    assert(!ranks.empty());
    std::size_t ending = 0;
    for (std::size_t i = 1; i < ranks.size(); ++i)
        if (ranks[i].wallS > ranks[ending].wallS)
            ending = i;
    return ending;
}

} // namespace hetplan
