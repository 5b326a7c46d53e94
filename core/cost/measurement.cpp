#include "core/cost/measurement.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <set>

namespace hetplan {
namespace {

void add(Breakdown &sum, const Breakdown &b, double factor = 1)
{
    sum.computeS += b.computeS * factor;
    sum.tpCommS += b.tpCommS * factor;
    sum.ppCommS += b.ppCommS * factor;
    sum.dpCommS += b.dpCommS * factor;
    sum.bubbleS += b.bubbleS * factor;
}

double tokensPerIteration(const MeasurementRun &run)
{
    return double(run.globalBatch) * run.seqLen;
}

} // namespace

Result<Measurement> mergeRankMeasurements(std::vector<Measurement> parts)
{
    if (parts.empty())
        return badInput("no rank results to merge");
    Measurement merged;
    merged.run = parts.front().run;
    merged.loss = parts.front().loss;
    std::set<std::string> hosts;
    std::set<int> seen;
    for (Measurement &part : parts) {
        const MeasurementRun &a = merged.run;
        const MeasurementRun &b = part.run;
        if (a.planDigest != b.planDigest) {
            std::string message = "rank results ran different plans (plan digest ";
            message += a.planDigest.empty() ? "none" : a.planDigest;
            message += " and ";
            message += b.planDigest.empty() ? "none" : b.planDigest;
            message += "); they are not from one run";
            return badInput(std::move(message));
        }
        if (a.planFile != b.planFile || a.model != b.model || a.scale != b.scale
            || a.iterations != b.iterations || a.seed != b.seed || a.globalBatch != b.globalBatch
            || a.seqLen != b.seqLen || a.backend != b.backend)
            return badInput("rank results of different runs cannot be merged");
        if (part.loss != merged.loss)
            return badInput("rank results disagree on the loss; they are not from one run");
        hosts.insert(b.hosts.begin(), b.hosts.end());
        for (MeasuredRank &r : part.ranks) {
            if (!seen.insert(r.rank).second)
                return badInput("rank " + std::to_string(r.rank) + " is given twice");
            merged.ranks.push_back(std::move(r));
        }
    }
    merged.run.hosts.assign(hosts.begin(), hosts.end());
    summarizeMeasurement(merged);
    return merged;
}

int firstTimedIteration(int iterations)
{
    return iterations >= 2 ? 1 : 0;
}

void summarizeMeasurement(Measurement &m)
{
    std::sort(m.ranks.begin(), m.ranks.end(),
              [](const MeasuredRank &a, const MeasuredRank &b) { return a.rank < b.rank; });
    const int iterations = static_cast<int>(m.loss.size());
    const int first = firstTimedIteration(iterations);
    const int timed = iterations - first;

    m.iterations.assign(std::size_t(iterations), {});
    for (int i = 0; i < iterations; ++i) {
        MeasuredIteration &it = m.iterations[std::size_t(i)];
        it.loss = m.loss[std::size_t(i)];
        // The rank that ends the iteration (endingRank): its wall time is the iteration's.
        const RankIteration *ending = nullptr;
        for (const MeasuredRank &r : m.ranks) {
            assert(r.iterations.size() == std::size_t(iterations));
            const RankIteration &ri = r.iterations[std::size_t(i)];
            if (!ending || ri.wallS > ending->wallS)
                ending = &ri;
        }
        if (ending) {
            it.iterationS = ending->wallS;
            it.breakdown = ending->breakdown;
        }
        it.tokensPerS = it.iterationS > 0 ? tokensPerIteration(m.run) / it.iterationS : 0;
    }

    m.iterationS = 0;
    m.breakdown = {};
    for (int i = first; i < iterations; ++i) {
        m.iterationS += m.iterations[std::size_t(i)].iterationS / timed;
        add(m.breakdown, m.iterations[std::size_t(i)].breakdown, 1.0 / timed);
    }
    m.tokensPerS = m.iterationS > 0 ? tokensPerIteration(m.run) / m.iterationS : 0;

    std::map<std::pair<int, int>, MeasuredStage> stages;
    for (const MeasuredRank &r : m.ranks) {
        MeasuredStage &s = stages[{r.pipeline, r.stage}];
        s.pipeline = r.pipeline;
        s.stage = r.stage;
        s.ranks.push_back(r.rank);
        s.peakMemoryGiB = std::max(s.peakMemoryGiB, r.peakMemoryGiB);
    }
    for (auto &[key, s] : stages) {
        for (const MeasuredRank &r : m.ranks) {
            if (r.pipeline != s.pipeline || r.stage != s.stage)
                continue;
            for (int i = first; i < iterations; ++i)
                add(s.breakdown, r.iterations[std::size_t(i)].breakdown,
                    1.0 / (double(timed) * double(s.ranks.size())));
        }
    }
    m.stages.clear();
    for (auto &[key, s] : stages)
        m.stages.push_back(std::move(s));
}

std::vector<MeasuredRankPhases> measuredRankPhases(const Measurement &m)
{
    std::vector<MeasuredRankPhases> out;
    for (const MeasuredRank &r : m.ranks) {
        MeasuredRankPhases rank{{r.rank, r.pipeline, r.stage, r.tpIndex, 0, {}, {}}, true};
        const int iterations = int(r.iterations.size());
        const int first = firstTimedIteration(iterations);
        const double share = iterations > first ? 1.0 / (iterations - first) : 0.0;
        for (int i = first; i < iterations; ++i) {
            const RankIteration &ri = r.iterations[std::size_t(i)];
            rank.phases.wallS += ri.wallS * share;
            add(rank.phases.breakdown, ri.breakdown, share);
            if (!ri.hops) {
                rank.hopsRecorded = false;
                continue;
            }
            HopPhases &h = rank.phases.hops;
            h.inPrevS += ri.hops->inPrevS * share;
            h.outPrevS += ri.hops->outPrevS * share;
            h.inNextS += ri.hops->inNextS * share;
            h.outNextS += ri.hops->outNextS * share;
        }
        out.push_back(rank);
    }
    return out;
}

} // namespace hetplan
