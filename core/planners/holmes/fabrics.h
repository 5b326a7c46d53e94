#pragma once

#include "core/model/topology.h"
#include "core/plan/plan.h"

#include <string>
#include <vector>

namespace hetplan::holmes {

// One RDMA fabric (Holmes §2.4: a cluster c_i): machines whose NICs are of one kind and that
// reach each other over links of that kind. Machines with Ethernet NICs form fabrics over
// Ethernet links the same way. Between fabrics only Ethernet remains (§2.2, case 2).
struct Fabric
{
    NicKind nic = NicKind::Ethernet;
    std::vector<int> machines; // indices into Cluster::machines, in cluster order

    // What its data-parallel groups use: its RDMA kind, or TCP sockets (§3.2).
    Transport transport() const;
    std::string describe(const Topology &topology) const; // "infiniband fabric ib-0, ib-1"
};

// What groups inside a fabric of machines with these NICs use: the RDMA kind, or TCP sockets.
Transport transportOf(NicKind nic);

// The fabrics of a cluster, ordered as Holmes numbers its clusters (§3.2: InfiniBand clusters
// first, then RoCE; Ethernet-only machines last), each by its first machine.
std::vector<Fabric> findFabrics(const Topology &topology);

} // namespace hetplan::holmes
