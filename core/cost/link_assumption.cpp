#include "core/cost/link_assumption.h"

#include "core/cost/hetplan_comm.h"

#include <set>

namespace hetplan {

LinkAssumption assumedTransfer(const Topology &topology, int from, int to, PathKind path)
{
    return {topology.effectiveBandwidthBytesPerS(from, to, path),
            topology.effectiveLatencyS(from, to, path)};
}

LinkAssumption assumedAllReduce(const Topology &topology, std::span<const int> gpus, PathKind path,
                                bool gradient)
{
    const GroupLinks links = groupLinks(topology, gpus, path);
    double busBytesPerS = links.slowestBytesPerS;
    if (gradient) {
        // The kind of the slowest pair sets the ring's loss, as asymmetricGradientSyncS does.
        LinkKind slowest = LinkKind::Ethernet;
        std::set<int> machines;
        for (std::size_t i = 0; i < gpus.size(); ++i) {
            machines.insert(topology.gpu(gpus[i]).machine);
            for (std::size_t k = i + 1; k < gpus.size(); ++k)
                if (topology.effectiveBandwidthBytesPerS(gpus[i], gpus[k], path)
                    <= links.slowestBytesPerS)
                    slowest = topology.pairKind(gpus[i], gpus[k], path);
        }
        busBytesPerS *= topology.ringScaleFactor(slowest, int(machines.size()));
    }
    return {busBytesPerS, 2.0 * double(gpus.size() - 1) * links.worstLatencyS};
}

MessageWeights messageWeights(const Problem &problem)
{
    const WireBytes wire = wireBytes(problem);
    return {wire.element, wire.perSequence};
}

} // namespace hetplan
