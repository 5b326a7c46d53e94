#include "core/planners/hexgen/kmeans_groups.h"

#include "core/model/topology.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace hetplan {

namespace {

constexpr int kMaxClusters = 16;
constexpr int kLloydRounds = 100;
// A pair without a path: far beyond any real link, yet finite so distances stay numbers.
constexpr double kUnreachableS = 1e3;

double squaredDistance(const std::vector<double> &a, const std::vector<double> &b)
{
    double sum = 0;
    for (size_t i = 0; i < a.size(); ++i)
        sum += (a[i] - b[i]) * (a[i] - b[i]);
    return sum;
}

} // namespace

CommunicationClusters::CommunicationClusters(const Topology &topology,
                                             const std::vector<std::vector<int>> &available,
                                             double messageBytes)
{
    for (size_t m = 0; m < available.size(); ++m) {
        if (available[m].empty())
            continue;
        m_machines.push_back(int(m));
        m_weights.push_back(int(available[m].size()));
    }
    for (int a : m_machines) {
        std::vector<double> row;
        const int gpuA = available[size_t(a)][0];
        for (int b : m_machines) {
            const std::vector<int> &gpusB = available[size_t(b)];
            // Within the machine: to its next GPU (0 for a machine of one).
            const int gpuB = a == b ? (gpusB.size() > 1 ? gpusB[1] : -1) : gpusB[0];
            double costS = 0;
            if (gpuB >= 0) {
                const double bandwidth = topology.bandwidthBytesPerS(gpuA, gpuB);
                costS = bandwidth > 0 ? topology.latencyS(gpuA, gpuB) + messageBytes / bandwidth
                                      : kUnreachableS;
            }
            row.push_back(costS);
        }
        m_features.push_back(std::move(row));
    }
}

CommunicationClusters::Run CommunicationClusters::run(int k, std::uint64_t seed) const
{
    const size_t points = m_features.size();
    if (points == 0)
        return {}; // no machine has a usable GPU: nothing to cluster
    k = std::clamp(k, 1, int(points));
    std::mt19937_64 rng(seed);
    // k-means++: each next centre drawn with probability ∝ weight × squared distance.
    std::vector<std::vector<double>> centres;
    std::vector<double> nearest(points, std::numeric_limits<double>::infinity());
    centres.push_back(m_features[rng() % points]);
    while (int(centres.size()) < k) {
        double total = 0;
        for (size_t p = 0; p < points; ++p) {
            nearest[p] = std::min(nearest[p], squaredDistance(m_features[p], centres.back()));
            total += m_weights[p] * nearest[p];
        }
        size_t chosen = 0;
        if (total > 0) {
            double pick = double(rng() >> 11) * 0x1.0p-53 * total;
            for (chosen = 0; chosen + 1 < points; ++chosen) {
                pick -= m_weights[chosen] * nearest[chosen];
                if (pick < 0)
                    break;
            }
        }
        centres.push_back(m_features[chosen]);
    }
    Run result;
    result.assignment.assign(points, 0);
    for (int round = 0; round < kLloydRounds; ++round) {
        bool changed = round == 0;
        result.inertia = 0;
        for (size_t p = 0; p < points; ++p) {
            int best = 0;
            double bestDistance = std::numeric_limits<double>::infinity();
            for (int c = 0; c < k; ++c) {
                const double d = squaredDistance(m_features[p], centres[size_t(c)]);
                if (d < bestDistance) {
                    bestDistance = d;
                    best = c;
                }
            }
            changed = changed || result.assignment[p] != best;
            result.assignment[p] = best;
            result.inertia += m_weights[p] * bestDistance;
        }
        if (!changed)
            break;
        for (int c = 0; c < k; ++c) {
            std::vector<double> sum(points, 0.0);
            double weight = 0;
            for (size_t p = 0; p < points; ++p) {
                if (result.assignment[p] != c)
                    continue;
                weight += m_weights[p];
                for (size_t i = 0; i < points; ++i)
                    sum[i] += m_weights[p] * m_features[p][i];
            }
            if (weight <= 0)
                continue;
            for (double &x : sum)
                x /= weight;
            centres[size_t(c)] = std::move(sum);
        }
    }
    return result;
}

std::vector<GpuGroup> CommunicationClusters::cluster(int k, std::uint64_t seed) const
{
    const Run result = run(k, seed);
    std::vector<GpuGroup> groups;
    if (result.assignment.empty())
        return groups;
    const int clusters = 1 + *std::max_element(result.assignment.begin(), result.assignment.end());
    for (int c = 0; c < clusters; ++c) {
        GpuGroup group;
        for (size_t p = 0; p < result.assignment.size(); ++p)
            if (result.assignment[p] == c)
                group.push_back({m_machines[p], m_weights[p]});
        if (!group.empty())
            groups.push_back(std::move(group));
    }
    return groups;
}

int CommunicationClusters::elbow(std::uint64_t seed) const
{
    const int maxK = std::min(int(m_features.size()), kMaxClusters);
    if (maxK <= 2)
        return maxK;
    std::vector<double> inertia;
    for (int k = 1; k <= maxK; ++k)
        inertia.push_back(run(k, seed).inertia);
    // Distance below the chord from (1, W₁) to (maxK, W_maxK), both axes normalised.
    const double span = inertia.front() - inertia.back();
    if (span <= 0)
        return 1;
    int best = 1;
    double bestGap = 0;
    for (int k = 1; k <= maxK; ++k) {
        const double x = double(k - 1) / double(maxK - 1);
        const double y = (inertia[size_t(k - 1)] - inertia.back()) / span;
        const double gap = (1.0 - x) - y;
        if (gap > bestGap) {
            bestGap = gap;
            best = k;
        }
    }
    return best;
}

} // namespace hetplan
