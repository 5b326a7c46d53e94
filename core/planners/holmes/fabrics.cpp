#include "core/planners/holmes/fabrics.h"

#include "core/plan/transport.h"

#include <algorithm>
#include <numeric>

namespace hetplan::holmes {

namespace {

int nicRank(NicKind nic)
{
    switch (nic) {
    case NicKind::InfiniBand:
        return 0;
    case NicKind::Roce:
        return 1;
    case NicKind::Ethernet:
        return 2;
    }
    return 2;
}

std::string_view nicName(NicKind nic)
{
    return nameOf<NicKind>(kNicKindNames, nic);
}

int findRoot(std::vector<int> &parent, int x)
{
    while (parent[size_t(x)] != x) {
        parent[size_t(x)] = parent[size_t(parent[size_t(x)])];
        x = parent[size_t(x)];
    }
    return x;
}

} // namespace

Transport transportOf(NicKind nic)
{
    switch (nic) {
    case NicKind::InfiniBand:
        return Transport::InfiniBand;
    case NicKind::Roce:
        return Transport::Roce;
    case NicKind::Ethernet:
        return Transport::Socket;
    }
    return Transport::Socket;
}

Transport Fabric::transport() const
{
    return transportOf(nic);
}

std::string Fabric::describe(const Topology &topology) const
{
    std::string text = std::string(nicName(nic)) + " fabric ";
    constexpr size_t kNamed = 4;
    for (size_t i = 0; i < machines.size() && i < kNamed; ++i)
        text += (i == 0 ? "" : ", ") + topology.cluster().machines[size_t(machines[i])].name;
    if (machines.size() > kNamed)
        text += ", … (" + std::to_string(machines.size()) + " machines)";
    return text;
}

std::vector<Fabric> findFabrics(const Topology &topology)
{
    const std::vector<Machine> &machines = topology.cluster().machines;
    const int count = int(machines.size());
    std::vector<int> parent(static_cast<size_t>(count));
    std::iota(parent.begin(), parent.end(), 0);
    for (int a = 0; a < count; ++a)
        for (int b = a + 1; b < count; ++b) {
            const NicKind nic = machines[size_t(a)].nic;
            if (machines[size_t(b)].nic != nic
                || topology.machineBandwidthGBps(a, b, pathOf(transportOf(nic))) <= 0)
                continue;
            parent[size_t(findRoot(parent, b))] = findRoot(parent, a);
        }

    std::vector<Fabric> fabrics;
    std::vector<int> fabricOfRoot(size_t(count), -1);
    for (int m = 0; m < count; ++m) {
        const int root = findRoot(parent, m);
        if (fabricOfRoot[size_t(root)] < 0) {
            fabricOfRoot[size_t(root)] = int(fabrics.size());
            fabrics.push_back({machines[size_t(m)].nic, {}});
        }
        fabrics[size_t(fabricOfRoot[size_t(root)])].machines.push_back(m);
    }
    std::stable_sort(fabrics.begin(), fabrics.end(), [](const Fabric &x, const Fabric &y) {
        return nicRank(x.nic) < nicRank(y.nic);
    });
    return fabrics;
}

} // namespace hetplan::holmes
