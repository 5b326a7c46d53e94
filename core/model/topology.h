#pragma once

#include "core/base/result.h"
#include "core/model/cluster.h"

#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace hetplan {

// Which links a path between two machines may use: all of them (the widest path), or only
// links of one kind, as a NCCL communicator bound to one kind of NIC does (Holmes §3.2): TCP
// sockets travel over Ethernet, InfiniBand and RoCE over their own fabrics.
enum class PathKind : unsigned char { Widest, Ethernet, InfiniBand, Roce };

// One GPU of the cluster, flattened: GPUs are numbered machine by machine, in file order.
struct GpuInfo
{
    int machine = 0;   // index into Cluster::machines
    int local = 0;     // index inside the machine
    std::string name;  // "machine:local"
    int typeIndex = 0; // into Topology's resolved types; see Topology::gpuType()
};

// The derived view of a Cluster that cost models and planners read: the flat GPU list with
// resolved specs, and bandwidth/latency between any two GPUs (docs/formats.md, "Cluster"):
//  - same machine: the machine's intra link;
//  - different machines: the widest path over links (machines and switches are nodes; a
//    path's bandwidth is its narrowest link); latency is the sum along that path (among
//    equally wide paths, the one with the lowest latency);
//  - a pair override wins over both; no path means not connected (bandwidth 0).
// The PathKind overloads restrict the network path to links of one kind; the intra link and
// pair overrides (measurements of what the pair really achieves) are the same for every kind.
// The effective figures are the same pairs as the `hetplan` cost model reads them, with the
// transport of their link kind applied; they are resolved once, when the Topology is built.
class Topology
{
public:
    // Resolves GPU types (cluster's own first, then `catalog`, e.g. builtinGpuCatalog()) and
    // transport figures (cluster's own first, then defaultTransports()), and checks references.
    // Errors name the field, e.g. "machines[2].gpu: unknown GPU type 'X'; valid: …".
    static Result<Topology> build(const Cluster &cluster, std::span<const GpuType> catalog);
    // The same GPU types on an edited cluster (a what-if bandwidth): the types this Topology
    // resolved serve as the catalog.
    Result<Topology> rebuilt(const Cluster &cluster) const { return build(cluster, m_types); }

    const Cluster &cluster() const { return m_cluster; }
    int gpuCount() const { return static_cast<int>(m_gpus.size()); }
    const GpuInfo &gpu(int index) const { return m_gpus[static_cast<size_t>(index)]; }
    const std::vector<GpuInfo> &gpus() const { return m_gpus; }
    const GpuType &gpuType(int index) const
    {
        return m_types[static_cast<size_t>(gpu(index).typeIndex)];
    }
    std::optional<int> findGpu(std::string_view name) const;
    // First flat GPU index of a machine; its GPUs are [first, first + count).
    int firstGpuOf(int machine) const { return m_machineFirstGpu[static_cast<size_t>(machine)]; }

    // Per direction, 1e9 bytes/s; 0 when the pair is not connected. a != b.
    double bandwidthGBps(int a, int b) const;
    double latencyUs(int a, int b) const;
    bool connected(int a, int b) const { return a == b || bandwidthGBps(a, b) > 0; }
    // The same in SI units for hot loops: bytes/s and seconds.
    double bandwidthBytesPerS(int a, int b) const { return bandwidthGBps(a, b) * 1e9; }
    double latencyS(int a, int b) const { return latencyUs(a, b) * 1e-6; }

    // Inline dispatch: the widest paths are what every evaluation reads in its innermost loops.
    double bandwidthGBps(int a, int b, PathKind path) const
    {
        return path == PathKind::Widest ? bandwidthGBps(a, b) : restrictedBandwidthGBps(a, b, path);
    }
    double latencyUs(int a, int b, PathKind path) const
    {
        return path == PathKind::Widest ? latencyUs(a, b) : restrictedLatencyUs(a, b, path);
    }
    bool connected(int a, int b, PathKind path) const
    {
        return a == b || bandwidthGBps(a, b, path) > 0;
    }
    double bandwidthBytesPerS(int a, int b, PathKind path) const
    {
        return bandwidthGBps(a, b, path) * 1e9;
    }
    double latencyS(int a, int b, PathKind path) const { return latencyUs(a, b, path) * 1e-6; }

    // Machine-to-machine network path (widest, then lowest latency); 0 = no path.
    double machineBandwidthGBps(int ma, int mb) const;
    double machineLatencyUs(int ma, int mb) const;
    double machineBandwidthGBps(int ma, int mb, PathKind path) const;
    double machineLatencyUs(int ma, int mb, PathKind path) const;

    // Whether the machines carry both InfiniBand and RoCE NICs, two RDMA kinds one NCCL
    // transport cannot join (Holmes §2.1).
    bool mixesRdmaNics() const { return m_mixesRdmaNics; }
    // Whether any GPU pair carries a measured override; without one, every value between two
    // GPUs of different machines depends on the machines alone.
    bool hasPairOverrides() const { return !m_overrides.empty(); }
    // A pair whose figures were measured (docs/cost-models.md, "Measured figures"): a pair
    // override, two GPUs of a machine whose intra bandwidth the cluster's origin records as
    // measured (an imported probe), or two machines whose `path` runs over links whose
    // bandwidth the origin records as measured, every one of them.
    bool measuredPair(int a, int b, PathKind path = PathKind::Widest) const;
    // The kind of link that carries a pair's traffic: the machine's intra link, or between
    // machines the kind of the path `path` takes. A widest path over links of different kinds
    // cannot carry RDMA end to end, so it counts as Ethernet (TCP sockets).
    LinkKind pairKind(int a, int b, PathKind path = PathKind::Widest) const;

    // The `hetplan` model's reading of a pair (docs/cost-models.md, "Transports and ring
    // scale"): bandwidth times its transport's efficiency; latency plus its per-hop figure,
    // times its latency factor. The default figures stand for nominal links, so they leave
    // measured pairs as measured; a cluster's own entry was fitted against the figures as they
    // are and applies to every pair of its kind.
    double effectiveBandwidthBytesPerS(int a, int b, PathKind path = PathKind::Widest) const;
    double effectiveLatencyS(int a, int b, PathKind path = PathKind::Widest) const;
    // The share of a ring's bus bandwidth left when it spans `machines` machines over `kind`:
    // (1 − loss)^(log2(machines) − 1) beyond two machines, 1 up to two.
    double ringScaleFactor(LinkKind kind, int machines) const;

private:
    // build(), step by step; each returns the first error it finds.
    struct NodeNames;
    Status checkMachinesAndSwitches(NodeNames &names);
    Status resolveGpus(std::span<const GpuType> catalog);
    void resolveTransports();
    Status addNetworkLinks(const NodeNames &names);
    Status checkPathWork() const;
    void computeWidestPaths();
    Status addPairOverrides();

    // Machine pairs' widest paths, row-major machineCount², over all links or one kind's.
    struct MachinePaths
    {
        std::vector<double> bandwidthGBps;
        std::vector<double> latencyUs;
        std::vector<char> measured; // every link of the path measured
    };
    // A validated network link between nodes (machines first, then switches).
    struct NetworkLink
    {
        int a;
        int b;
        LinkKind kind;
        double bandwidthGBps;
        double latencyUs;
        bool measured; // the cluster's origin records its bandwidth as measured
    };
    // Paths over each link kind, computed on first use (only plans that record transports or
    // mix RDMA kinds ask) and shared by copies of this Topology, which describe the same
    // network. Each kind's search is bounded by kMaxPathWork like the widest paths' (its links
    // and widths are a subset); the three tables take up to 3 × 64 MiB at kMaxMachines.
    struct KindPaths;
    const MachinePaths &restrictedPaths(PathKind path) const;
    double restrictedBandwidthGBps(int a, int b, PathKind path) const;
    double restrictedLatencyUs(int a, int b, PathKind path) const;
    const MachinePaths &pathsOf(PathKind path) const
    {
        return path == PathKind::Widest ? m_widest : restrictedPaths(path);
    }
    static MachinePaths computePaths(const std::vector<NetworkLink> &links, int nodeCount,
                                     int machineCount, std::optional<LinkKind> only);

    Cluster m_cluster;
    std::vector<GpuType> m_types; // resolved types, one per distinct name in use
    std::vector<GpuInfo> m_gpus;
    std::vector<int> m_machineFirstGpu;
    int m_machineCount = 0;
    MachinePaths m_widest;
    std::vector<NetworkLink> m_links;
    int m_nodeCount = 0;
    std::shared_ptr<KindPaths> m_kindPaths;
    bool m_mixesRdmaNics = false;
    std::optional<LinkKind> m_onlyLinkKind; // when every network link is of one kind
    std::vector<bool> m_measuredIntra;      // per machine
    bool m_anyMeasuredLink = false;
    struct PairValue
    {
        double bandwidthGBps;
        double latencyUs;
    };
    std::unordered_map<long long, PairValue> m_overrides; // key: min(a,b) * kMaxGpus + max(a,b)
    // A transport's figures as the effective pair values apply them.
    struct EffectiveTransport
    {
        double efficiency = 1;
        double latencyS = 0;
        double latencyFactor = 1;
        double lossPerDoubling = 0;
        double ceilingBytesPerS = 0;    // 0: none
        bool appliesToMeasured = false; // the cluster's own entry, not a default
    };
    std::array<EffectiveTransport, 5> m_transports; // indexed by LinkKind
    const EffectiveTransport &transportOf(int a, int b, PathKind path) const
    {
        return m_transports[static_cast<size_t>(pairKind(a, b, path))];
    }
    double pairValue(int a, int b, const std::vector<double> &machineTable,
                     double PairValue::*measured, double IntraLink::*intra) const;
};

} // namespace hetplan
