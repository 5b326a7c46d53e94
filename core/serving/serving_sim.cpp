#include "core/serving/serving_sim.h"

#include "core/base/infinity.h"
#include "core/serving/serving_stream.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <random>

namespace hetplan {

namespace {

double quantile(std::vector<double> &values, double q)
{
    if (values.empty())
        return 0;
    const double rank = std::floor(q * double(values.size()));
    const auto k = size_t(std::min(double(values.size() - 1), rank));
    std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(k), values.end());
    return values[k];
}

} // namespace

ServingSimulator::ServingSimulator(const ServingOptions &options)
    : m_options(options)
{
    assert(options.requests > 0);
    std::mt19937_64 rng(options.seed);
    m_unitArrivalS.resize(size_t(options.requests));
    double t = 0;
    for (double &arrival : m_unitArrivalS) {
        t += unitExponential(rng);
        arrival = t;
    }
}

void ServingSimulator::run(std::span<const double> replicaLatencyS, double ratePerS, double sloS,
                           std::vector<double> &latencyS) const
{
    const size_t replicas = replicaLatencyS.size();
    latencyS.assign(m_unitArrivalS.size(), kInfinity);
    thread_local std::vector<double> freeAtS;
    thread_local std::vector<double> weight;
    thread_local std::vector<double> credit;
    freeAtS.assign(replicas, 0.0);
    weight.assign(replicas, 0.0);
    credit.assign(replicas, 0.0);
    double totalWeight = 0;
    for (const bool sloOnly : {true, false}) {
        for (size_t r = 0; r < replicas; ++r) {
            const double l = replicaLatencyS[r];
            const bool usable = std::isfinite(l) && l > 0 && (!sloOnly || l <= sloS);
            weight[r] = usable ? 1.0 / l : 0.0;
            totalWeight += weight[r];
        }
        if (totalWeight > 0)
            break;
    }
    if (totalWeight <= 0)
        return;

    for (size_t i = 0; i < m_unitArrivalS.size(); ++i) {
        const double arrivalS = m_unitArrivalS[i] / ratePerS;
        size_t chosen = replicas;
        if (m_options.dispatch == DispatchPolicy::WeightedRoundRobin) {
            chosen = nextWeightedReplica(weight, totalWeight, credit);
        } else {
            double bestS = kInfinity;
            for (size_t r = 0; r < replicas; ++r) {
                if (weight[r] <= 0)
                    continue;
                const double doneS = std::max(arrivalS, freeAtS[r]) + replicaLatencyS[r];
                if (doneS < bestS) {
                    bestS = doneS;
                    chosen = r;
                }
            }
        }
        const double doneS = std::max(arrivalS, freeAtS[chosen]) + replicaLatencyS[chosen];
        freeAtS[chosen] = doneS;
        latencyS[i] = doneS - arrivalS;
    }
}

ServingOutcome ServingSimulator::simulate(std::span<const double> replicaLatencyS, double ratePerS,
                                          double sloS) const
{
    std::vector<double> latencyS;
    run(replicaLatencyS, ratePerS, sloS, latencyS);
    ServingOutcome outcome;
    outcome.requestRatePerS = ratePerS;
    size_t met = 0;
    double sumS = 0;
    for (double l : latencyS) {
        met += l <= sloS ? 1 : 0;
        sumS += l;
    }
    outcome.attainment = double(met) / double(latencyS.size());
    outcome.meanS = sumS / double(latencyS.size());
    outcome.p50S = quantile(latencyS, 0.50);
    outcome.p99S = quantile(latencyS, 0.99);
    return outcome;
}

double ServingSimulator::attainment(std::span<const double> replicaLatencyS, double ratePerS,
                                    double sloS) const
{
    thread_local std::vector<double> latencyS;
    run(replicaLatencyS, ratePerS, sloS, latencyS);
    const auto met
        = std::count_if(latencyS.begin(), latencyS.end(), [sloS](double l) { return l <= sloS; });
    return double(met) / double(latencyS.size());
}

double ServingSimulator::maxSustainableRate(std::span<const double> replicaLatencyS,
                                            double sloS) const
{
    const double target = m_options.targetAttainment;
    double capacityPerS = 0;
    for (double l : replicaLatencyS)
        if (std::isfinite(l) && l > 0)
            capacityPerS += 1.0 / l;
    if (capacityPerS <= 0)
        return 0;
    // An almost idle cluster: the best attainment any rate can reach.
    double low = capacityPerS * 1e-6;
    if (attainment(replicaLatencyS, low, sloS) < target)
        return 0;
    double high = capacityPerS;
    for (int i = 0; i < 60 && attainment(replicaLatencyS, high, sloS) >= target; ++i) {
        low = high;
        high *= 2;
    }
    while (high - low > 1e-3 * low) {
        const double mid = 0.5 * (low + high);
        (attainment(replicaLatencyS, mid, sloS) >= target ? low : high) = mid;
    }
    return low;
}

} // namespace hetplan
