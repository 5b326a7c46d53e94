#include "core/plan/rank_layout.h"

#include "core/model/topology.h"

#include <map>

namespace hetplan {

std::vector<RankPlacement> rankLayout(const Plan &plan, const Topology &topology,
                                      const std::vector<std::string> &hostOfMachine)
{
    const auto hostOf = [&](int machine) {
        const auto m = static_cast<std::size_t>(machine);
        if (m < hostOfMachine.size() && !hostOfMachine[m].empty())
            return hostOfMachine[m];
        const Machine &own = topology.cluster().machines[m];
        return own.host.empty() ? own.name : own.host;
    };
    std::vector<RankPlacement> layout;
    std::map<std::string, int> ranksOnHost;
    for (std::size_t p = 0; p < plan.pipelines.size(); ++p) {
        const Pipeline &pipe = plan.pipelines[p];
        for (std::size_t s = 0; s < pipe.stages.size(); ++s) {
            const Stage &stage = pipe.stages[s];
            for (std::size_t i = 0; i < stage.gpus.size(); ++i) {
                const GpuInfo &info = topology.gpu(stage.gpus[i]);
                RankPlacement r;
                r.rank = static_cast<int>(layout.size());
                r.machine = info.machine;
                r.machineName = topology.cluster().machines[std::size_t(info.machine)].name;
                r.host = hostOf(info.machine);
                r.gpu = stage.gpus[i];
                r.gpuName = info.name;
                r.gpuIndex = info.local;
                r.localRank = ranksOnHost[r.host]++;
                r.pipeline = static_cast<int>(p);
                r.stage = static_cast<int>(s);
                // Stage::gpus holds the DP replicas one after another, tp GPUs each.
                r.replica = static_cast<int>(i) / stage.tp;
                r.tpRank = static_cast<int>(i) % stage.tp;
                r.tpSize = stage.tp;
                r.layerBegin = stage.layerBegin;
                r.layerEnd = stage.layerEnd;
                layout.push_back(std::move(r));
            }
        }
    }
    return layout;
}

std::vector<NodeRanks> nodesOf(const std::vector<RankPlacement> &layout)
{
    std::vector<NodeRanks> nodes;
    std::map<std::string, std::size_t> index;
    std::vector<int> machineOf; // per node, the machine of its first rank
    for (const RankPlacement &r : layout) {
        auto [it, added] = index.try_emplace(r.host, nodes.size());
        if (added) {
            nodes.push_back({r.host, {}, {}, true});
            machineOf.push_back(r.machine);
        }
        NodeRanks &node = nodes[it->second];
        node.ranks.push_back(r.rank);
        node.gpuIndices.push_back(r.gpuIndex);
        node.singleMachine = node.singleMachine && machineOf[it->second] == r.machine;
    }
    return nodes;
}

} // namespace hetplan
