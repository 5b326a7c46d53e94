#pragma once

// Metis §4.1 ("Load balancing") and §4.2.2 part 3 ("Capacity-aware load balancing"): data
// within a stage (uneven micro-batch shares over heterogeneous DP replicas) and layers across
// stages, both in proportion to measured capacity.

#include <optional>
#include <span>
#include <vector>

namespace hetplan::metis {

// Data load balancing: splits `sequences` over replicas whose time per sequence is
// `secondsPerSequence`, every replica at least one (mbs_i ≥ 1, Σ mbs_i = bs), so that the
// slowest replica finishes first. Ties go to the replica with more `memoryGiB` to spare.
// Requires sequences ≥ replicas.
std::vector<int> balanceData(std::span<const double> secondsPerSequence,
                             std::span<const double> memoryGiB, int sequences);

// One stage as layer balancing sees it: per micro-batch, fixedS + layers · perLayerS, and at
// most maxLayers layers (memory; a large number when unconstrained).
struct StageLoad
{
    double fixedS = 0;
    double perLayerS = 0;
    int maxLayers = 0;
};

// Layer load balancing: `layers` layers over the stages, each at least one and at most its
// maxLayers, minimising the slowest stage. Each next layer goes to the stage it slows down
// least: the integer form of "proportional to the capacity of each stage", optimal for loads
// that grow linearly with the layer count. Empty when the stages cannot hold the layers.
std::optional<std::vector<int>> balanceLayers(std::span<const StageLoad> stages, int layers);

} // namespace hetplan::metis
