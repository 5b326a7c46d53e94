#include "core/cost/paper_formulas.h"

#include "core/cost/cost_helpers.h"

#include <algorithm>
#include <vector>

namespace hetplan {

namespace {

inline double pairS(const Topology &topology, int x, int y, double bytes, PathKind path)
{
    return topology.latencyS(x, y, path)
           + transferS(bytes, topology.bandwidthBytesPerS(x, y, path));
}

} // namespace

namespace {

// paperExchangeS for large groups without pair overrides: α and β then depend only on the two
// machines, so each GPU's sum is Σ over machines of (GPUs there) × (that machine pair's term),
// O(machines²) instead of O(GPUs²). Same value up to rounding.
double exchangeByMachineS(const Topology &topology, std::span<const int> group, double share,
                          PathKind path)
{
    struct MachineGroup
    {
        int machine;
        int firstGpu;
        int secondGpu; // -1 when the group has one GPU of this machine
        int count;
    };
    thread_local std::vector<MachineGroup> machines;
    machines.clear();
    for (int gpu : group) {
        const int machine = topology.gpu(gpu).machine;
        auto it = std::find_if(machines.begin(), machines.end(),
                               [machine](const MachineGroup &m) { return m.machine == machine; });
        if (it == machines.end()) {
            machines.push_back({machine, gpu, -1, 1});
        } else {
            if (it->secondGpu < 0)
                it->secondGpu = gpu;
            ++it->count;
        }
    }
    double worstS = 0;
    for (const MachineGroup &x : machines) {
        double sumS = x.count > 1
                          ? (x.count - 1) * pairS(topology, x.firstGpu, x.secondGpu, share, path)
                          : 0.0;
        for (const MachineGroup &y : machines)
            if (y.machine != x.machine)
                sumS += y.count * pairS(topology, x.firstGpu, y.firstGpu, share, path);
        worstS = std::max(worstS, sumS);
    }
    return worstS;
}

} // namespace

double paperExchangeS(const Topology &topology, std::span<const int> group, double bytes,
                      PathKind path)
{
    const size_t n = group.size();
    if (n < 2)
        return 0;
    const double share = bytes / double(n);
    if (n > 16 && topology.cluster().pairOverrides.empty())
        return exchangeByMachineS(topology, group, share, path);
    // α and β are symmetric, so each pair is looked up once and added to both ends.
    thread_local std::vector<double> sums;
    sums.assign(n, 0.0);
    for (size_t i = 0; i < n; ++i)
        for (size_t k = i + 1; k < n; ++k) {
            const double termS = pairS(topology, group[i], group[k], share, path);
            sums[i] += termS;
            sums[k] += termS;
        }
    return *std::max_element(sums.begin(), sums.end());
}

double paperBestLinkS(const Topology &topology, std::span<const int> from, std::span<const int> to,
                      double bytes, PathKind path)
{
    double bestS = kInfinity;
    for (int x : from)
        for (int y : to)
            if (x != y)
                bestS = std::min(bestS, pairS(topology, x, y, bytes, path));
    return bestS;
}

double paperSendAndBroadcastS(const Topology &topology, std::span<const int> from,
                              std::span<const int> to, double bytes, PathKind path)
{
    const double share = bytes / double(std::max<size_t>(to.size(), 1));
    double bestS = kInfinity;
    for (int y : to) {
        double broadcastS = 0;
        for (int z : to)
            if (z != y)
                broadcastS += pairS(topology, y, z, share, path);
        if (broadcastS >= bestS)
            continue;
        for (int x : from)
            if (x != y)
                bestS = std::min(bestS, pairS(topology, x, y, bytes, path) + broadcastS);
    }
    return bestS;
}

} // namespace hetplan
