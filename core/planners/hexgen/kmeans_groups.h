#pragma once

// HexGen §4.3 "Initialization": K-means on the communication matrix builds the first pipeline
// groups, with K chosen by the elbow method, so that groups avoid slow cross-region links.

#include "core/planners/hexgen/pipeline_dp.h"

#include <cstdint>
#include <vector>

namespace hetplan {

class Topology;

// A GPU's features are its row of the communication matrix: α + bytes/β to every other
// machine for a message of `messageBytes` (a prompt's activations). The GPUs of one machine
// share their row (their pair with each other is the intra link), so the clustering runs on
// machines weighted by their GPU count: the same result as on GPUs, at machine cost.
class CommunicationClusters
{
public:
    // `available[m]`: the usable GPUs of machine m (machines without any are left out).
    CommunicationClusters(const Topology &topology, const std::vector<std::vector<int>> &available,
                          double messageBytes);

    // Lloyd's algorithm from a k-means++ start drawn from `seed`; groups of whole machines,
    // at most k (empty clusters are dropped); none when no machine has a usable GPU.
    std::vector<GpuGroup> cluster(int k, std::uint64_t seed) const;
    // The elbow of within-cluster sum of squares over k = 1 … min(machines, 16): the k
    // farthest below the straight line between the two ends.
    int elbow(std::uint64_t seed) const;

private:
    struct Run
    {
        std::vector<int> assignment; // per point
        double inertia = 0;
    };
    Run run(int k, std::uint64_t seed) const;

    std::vector<int> m_machines; // machine of each point
    std::vector<int> m_weights;  // its GPU count
    std::vector<std::vector<double>> m_features;
};

} // namespace hetplan
