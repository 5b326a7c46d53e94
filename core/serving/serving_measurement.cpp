#include "core/serving/serving_measurement.h"

#include <algorithm>
#include <cmath>

namespace hetplan {

namespace {

bool measured(const ServedRequest &r)
{
    return !r.warmup;
}

double tpotOf(const ServedRequest &r)
{
    return (r.finishS - r.firstTokenS) / double(r.outputTokens - 1);
}

LatencyStats statsOf(const std::vector<double> &valuesS)
{
    LatencyStats stats;
    if (valuesS.empty())
        return stats;
    double sumS = 0;
    for (double v : valuesS)
        sumS += v;
    stats.meanS = sumS / double(valuesS.size());
    stats.p50S = percentileOf(valuesS, 0.50);
    stats.p90S = percentileOf(valuesS, 0.90);
    stats.p99S = percentileOf(valuesS, 0.99);
    return stats;
}

double meanOf(double sum, int count)
{
    return count > 0 ? sum / count : 0.0;
}

} // namespace

double percentileOf(std::vector<double> values, double q)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const double rank = std::clamp(q, 0.0, 1.0) * double(values.size() - 1);
    const auto below = std::size_t(std::floor(rank));
    const std::size_t above = std::min(below + 1, values.size() - 1);
    const double fraction = rank - double(below);
    return values[below] + fraction * (values[above] - values[below]);
}

void setMeasuredWindow(ServingRun &run, std::span<const ServedRequest> requests)
{
    bool any = false;
    run.windowBeginS = run.windowEndS = 0;
    for (const ServedRequest &r : requests) {
        if (!measured(r))
            continue;
        run.windowBeginS = any ? std::min(run.windowBeginS, r.arrivalS) : r.arrivalS;
        const double endS = r.completed ? r.finishS : r.arrivalS;
        run.windowEndS = any ? std::max(run.windowEndS, endS) : endS;
        any = true;
    }
}

ServingSummary summarizeServed(std::span<const ServedRequest> requests, double sloS, double windowS)
{
    ServingSummary summary;
    std::vector<double> ttftS;
    std::vector<double> tpotS;
    std::vector<double> latencyS;
    int met = 0;
    double outputTokens = 0;
    for (const ServedRequest &r : requests) {
        ++summary.requests;
        (r.completed ? summary.completed : summary.failed) += 1;
        if (!measured(r)) {
            ++summary.warmup;
            continue;
        }
        outputTokens += r.outputTokens;
        if (!r.completed)
            continue;
        ttftS.push_back(r.firstTokenS - r.arrivalS);
        latencyS.push_back(r.finishS - r.arrivalS);
        if (r.outputTokens > 1)
            tpotS.push_back(tpotOf(r));
        met += latencyS.back() <= sloS ? 1 : 0;
    }
    summary.ttft = statsOf(ttftS);
    summary.tpot = statsOf(tpotS);
    summary.latency = statsOf(latencyS);
    const int measuredRequests = summary.requests - summary.warmup;
    summary.attainment = measuredRequests > 0 ? double(met) / measuredRequests : 0.0;
    summary.outputTokensPerS = windowS > 0 ? outputTokens / windowS : 0.0;
    return summary;
}

std::vector<ServedReplica> servedReplicas(std::span<const ServedRequest> requests, int replicaCount)
{
    std::vector<ServedReplica> replicas(std::size_t(std::max(0, replicaCount)));
    struct Sums
    {
        double prefillS = 0, tpotS = 0, queueS = 0;
        int completed = 0, decoded = 0;
    };
    std::vector<Sums> sums(replicas.size());
    for (std::size_t i = 0; i < replicas.size(); ++i)
        replicas[i].replica = int(i);
    for (const ServedRequest &r : requests) {
        if (r.replica < 0 || std::size_t(r.replica) >= replicas.size())
            continue;
        ServedReplica &replica = replicas[std::size_t(r.replica)];
        Sums &sum = sums[std::size_t(r.replica)];
        ++replica.requests;
        if (!r.completed) {
            ++replica.failed;
            if (replica.failure.empty())
                replica.failure = r.failure;
            continue;
        }
        ++replica.completed;
        if (!measured(r))
            continue;
        ++sum.completed;
        sum.prefillS += r.firstTokenS - r.admittedS;
        sum.queueS += r.admittedS - r.arrivalS;
        if (r.outputTokens > 1) {
            ++sum.decoded;
            sum.tpotS += tpotOf(r);
        }
    }
    for (std::size_t i = 0; i < replicas.size(); ++i) {
        replicas[i].meanPrefillS = meanOf(sums[i].prefillS, sums[i].completed);
        replicas[i].meanQueueS = meanOf(sums[i].queueS, sums[i].completed);
        replicas[i].meanTpotS = meanOf(sums[i].tpotS, sums[i].decoded);
    }
    return replicas;
}

void summarizeMeasurement(ServingMeasurement &m)
{
    setMeasuredWindow(m.run, m.requests);
    m.summary = summarizeServed(m.requests, m.run.sloS, m.run.windowEndS - m.run.windowBeginS);
    std::vector<ServedReplica> figures = servedReplicas(m.requests, int(m.replicas.size()));
    for (std::size_t i = 0; i < figures.size(); ++i) {
        figures[i].gpus = std::move(m.replicas[i].gpus);
        figures[i].ranks = std::move(m.replicas[i].ranks);
    }
    m.replicas = std::move(figures);
}

} // namespace hetplan
