#include "core/cost/rank_phases.h"

#include "core/plan/plan.h"
#include "core/sim/pipeline_sim.h"

#include <algorithm>
#include <cassert>

namespace hetplan {
namespace {

// A replica's part of a hop whose other side is one replica: its own rows share that side's
// link with the other replicas' rows. A link that serves transfers in the order they come (a
// network interface's queue) ends one of k equal ones, on average, at (k+1)/(2k) of the whole:
// halfway between the transfer alone and the whole hop. The other side waits for all of them.
double ownPartS(double wholeS, double ownS)
{
    return ownS > 0 ? (ownS + wholeS) / 2 : wholeS;
}

// Per micro-batch hops of stage j of a pipeline, as its TP leader sees them: the whole hop, or
// with `ownParts` (a rank of a stage with several DP replicas) its own part where that applies.
HopPhases stageHops(const std::vector<StageTiming> &stages, std::size_t j, bool ownParts = false)
{
    HopPhases hops;
    if (j + 1 < stages.size()) {
        const StageTiming &next = stages[j];
        hops.outNextS = next.hopForwardS;
        hops.inNextS = next.hopS - next.hopForwardS;
        if (ownParts) {
            hops.outNextS = ownPartS(hops.outNextS, next.hopForwardOwnS);
            hops.inNextS = ownPartS(hops.inNextS, next.hopBackwardOwnS);
        }
    }
    if (j > 0) {
        const StageTiming &prev = stages[j - 1];
        hops.inPrevS = prev.hopForwardS;
        hops.outPrevS = prev.hopS - prev.hopForwardS;
        if (ownParts) {
            hops.inPrevS = ownPartS(hops.inPrevS, prev.hopForwardOwnS);
            hops.outPrevS = ownPartS(hops.outPrevS, prev.hopBackwardOwnS);
        }
    }
    return hops;
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

RankExchanges scheduleExchanges(const HopPhases &perMicroBatch, int stage, int stageCount,
                                int microBatches, SendsReturn sends)
{
    using Hop = double HopPhases::*;
    const auto heldS = [&](Hop hop) {
        const bool send = hop == &HopPhases::outPrevS || hop == &HopPhases::outNextS;
        return send && sends == SendsReturn::OnHandOff ? 0.0 : perMicroBatch.*hop;
    };
    RankExchanges exchanges;
    // `count` exchanges carrying `hops`, of which those the rank has (a time above 0) take part;
    // each exchange takes the longest of them.
    const auto post = [&](int count, std::initializer_list<Hop> hops) {
        if (count <= 0)
            return;
        double timeS = 0;
        for (const Hop hop : hops)
            if (perMicroBatch.*hop > 0)
                timeS = std::max(timeS, heldS(hop));
        for (const Hop hop : hops)
            if (perMicroBatch.*hop > 0)
                exchanges.hops.*hop += count * timeS;
        exchanges.ppCommS += count * timeS;
    };
    const int warmUp = std::min(stageCount - 1 - stage, microBatches);
    const int steady = microBatches - warmUp;
    // The warm-up's forwards and the cool-down's backwards: each transfer alone.
    for (const Hop hop :
         {&HopPhases::inPrevS, &HopPhases::outNextS, &HopPhases::inNextS, &HopPhases::outPrevS})
        post(warmUp, {hop});
    if (steady > 0) {
        post(1, {&HopPhases::inPrevS});
        post(steady, {&HopPhases::outNextS, &HopPhases::inNextS});
        post(steady - 1, {&HopPhases::outPrevS, &HopPhases::inPrevS});
        post(1, {&HopPhases::outPrevS});
    }
    return exchanges;
}

bool predictRankPhases(const Plan &plan, const Evaluation &evaluation, std::span<RankPhases> ranks,
                       SendsReturn sends)
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
        HopPhases perMicroBatch = stageHops(stages, j, plan.pipelines[p].stages[j].dp > 1);
        if (r.tpIndex > 0) // only the TP leader sends; the others receive its broadcast
            perMicroBatch.outNextS = perMicroBatch.outPrevS = 0;

        const RankExchanges exchanges
            = scheduleExchanges(perMicroBatch, r.stage, int(stages.size()), m, sends);
        r.hops = exchanges.hops;
        Breakdown &b = r.breakdown = {};
        b.computeS = m * t.computeS;
        b.tpCommS = m * t.tpCommS;
        b.ppCommS = exchanges.ppCommS;
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

std::vector<RankPhases> planRankPhases(const Plan &plan, const Evaluation &evaluation,
                                       SendsReturn sends)
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
    if (!predictRankPhases(plan, evaluation, ranks, sends))
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
