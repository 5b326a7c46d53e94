#pragma once

#include "core/base/result.h"
#include "core/model/cluster.h"

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace hetplan {

class GpuCatalog;

// One GPU of the cluster, flattened: GPUs are numbered machine by machine, in file order.
struct GpuInfo
{
    int machine = 0;     // index into Cluster::machines
    int local = 0;       // index inside the machine
    std::string name;    // "machine:local"
    int typeIndex = 0;   // into Topology's resolved types; see Topology::gpuType()
};

// The derived view of a Cluster that cost models and planners read: the flat GPU list with
// resolved specs, and bandwidth/latency between any two GPUs (DESIGN.md, cluster format):
//  - same machine: the machine's intra link;
//  - different machines: the widest path over links (machines and switches are nodes; a
//    path's bandwidth is its narrowest link); latency is the sum along that path (among
//    equally wide paths, the one with the lowest latency);
//  - a pair override wins over both; no path means not connected (bandwidth 0).
class Topology
{
public:
    // Resolves GPU types (cluster's own first, then the catalog) and checks references.
    // Errors name the field, e.g. "machines[2].gpu: unknown GPU type 'X'; valid: …".
    static Result<Topology> build(const Cluster &cluster, const GpuCatalog &catalog);

    const Cluster &cluster() const { return m_cluster; }
    int gpuCount() const { return static_cast<int>(m_gpus.size()); }
    const GpuInfo &gpu(int index) const { return m_gpus[static_cast<size_t>(index)]; }
    const std::vector<GpuInfo> &gpus() const { return m_gpus; }
    const GpuType &gpuType(int index) const { return m_types[static_cast<size_t>(gpu(index).typeIndex)]; }
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

    // Machine-to-machine network path (widest, then lowest latency); 0 = no path.
    double machineBandwidthGBps(int ma, int mb) const;
    double machineLatencyUs(int ma, int mb) const;

private:
    Cluster m_cluster;
    std::vector<GpuType> m_types; // resolved types, one per distinct name in use
    std::vector<GpuInfo> m_gpus;
    std::vector<int> m_machineFirstGpu;
    int m_machineCount = 0;
    std::vector<double> m_machineBandwidthGBps; // machineCount², row-major
    std::vector<double> m_machineLatencyUs;
    struct PairValue
    {
        double bandwidthGBps;
        double latencyUs;
    };
    std::unordered_map<long long, PairValue> m_overrides; // key: min(a,b) * kMaxGpus + max(a,b)
};

} // namespace hetplan
