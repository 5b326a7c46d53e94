#pragma once

// The one rule for which network paths a plan's communication groups take (docs/formats.md, plan
// format: "A plan may record the transport of its communication groups"). Every cost model and
// the validator ask it, so a plan is charged and checked over the links it will really use.

#include "core/base/enum_names.h"
#include "core/model/topology.h"
#include "core/plan/plan.h"

#include <optional>
#include <string>
#include <string_view>

namespace hetplan {

// The links a transport travels over: TCP sockets over Ethernet, RDMA over its own fabric.
PathKind pathOf(Transport transport);
// "infiniband", "roce", "socket": the plan file's spelling, also used in messages.
inline constexpr EnumName<Transport> kTransportNames[] = {{"infiniband", Transport::InfiniBand},
                                                          {"roce", Transport::Roce},
                                                          {"socket", Transport::Socket}};
std::string_view transportName(Transport transport);
// For messages: "" for the widest path, else " over <kind> links".
std::string overLinks(PathKind path);

// Resolves the transport of each group of one plan to the links its inter-machine pairs use.
// A recorded transport restricts the group to that kind's links (Holmes §3.2, per-group NIC
// selection). A group without one gets what stock NCCL gives the whole job: the best path, except
// when the plan's GPUs sit on machines with both InfiniBand and RoCE NICs; NCCL cannot open one
// RDMA transport across the two and falls back to TCP sockets over Ethernet for every
// communicator of the job (Holmes §2.2, §3.2).
class PlanPaths
{
public:
    PlanPaths(const Topology &topology, const Plan &plan);

    PathKind unrecorded() const { return m_unrecorded; }
    PathKind of(const std::optional<Transport> &transport) const
    {
        return transport ? pathOf(*transport) : m_unrecorded;
    }
    PathKind tp(const Stage &stage) const { return of(stage.transport.tp); }
    PathKind hop(const Stage &from) const { return of(from.transport.pp); }
    PathKind dp(const Stage &stage) const { return of(stage.transport.dp); }

    // One gradient all-reduce among stages that record different transports cannot be bound to
    // either (the validator refuses such plans); the only links every member shares is Ethernet.
    static PathKind shared(PathKind a, PathKind b) { return a == b ? a : PathKind::Ethernet; }

private:
    PathKind m_unrecorded = PathKind::Widest;
};

} // namespace hetplan
