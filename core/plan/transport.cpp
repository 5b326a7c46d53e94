#include "core/plan/transport.h"

namespace hetplan {

PathKind pathOf(Transport transport)
{
    switch (transport) {
    case Transport::InfiniBand:
        return PathKind::InfiniBand;
    case Transport::Roce:
        return PathKind::Roce;
    case Transport::Socket:
        return PathKind::Ethernet;
    }
    return PathKind::Ethernet;
}

std::string_view transportName(Transport transport)
{
    return nameOf<Transport>(kTransportNames, transport);
}

std::string overLinks(PathKind path)
{
    switch (path) {
    case PathKind::Widest:
        return {};
    case PathKind::Ethernet:
        return " over Ethernet links";
    case PathKind::InfiniBand:
        return " over InfiniBand links";
    case PathKind::Roce:
        return " over RoCE links";
    }
    return {};
}

PlanPaths::PlanPaths(const Topology &topology, const Plan &plan)
{
    if (!topology.mixesRdmaNics())
        return;
    bool infiniBand = false;
    bool roce = false;
    const std::vector<Machine> &machines = topology.cluster().machines;
    for (const Pipeline &pipeline : plan.pipelines)
        for (const Stage &stage : pipeline.stages)
            for (int gpu : stage.gpus) {
                if (gpu < 0 || gpu >= topology.gpuCount())
                    continue; // the validator reports it
                const NicKind nic = machines[size_t(topology.gpu(gpu).machine)].nic;
                infiniBand = infiniBand || nic == NicKind::InfiniBand;
                roce = roce || nic == NicKind::Roce;
            }
    if (infiniBand && roce)
        m_unrecorded = PathKind::Ethernet;
}

} // namespace hetplan
