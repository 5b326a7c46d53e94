#pragma once

// `nvidia-smi topo -m` (docs/probe.md, "GPU hosts"): the link matrix between a host's GPUs and
// NICs. Read by hetplan-probe on GPU hosts, and by whatever imports a saved copy.

#include "core/base/result.h"
#include "core/io/probe_file.h"
#include "core/model/gpu_type.h"

#include <string>
#include <string_view>
#include <vector>

namespace hetplan {

struct NvidiaTopology
{
    // Matrix columns in order: "GPU0", "GPU1", then NICs by their device names ("mlx5_0"),
    // NIC# columns mapped through the NIC legend when the output has one.
    std::vector<std::string> devices;
    // links[i][j]: the cell of row i, column j, as printed ("X", "NV18", "PIX", …).
    std::vector<std::vector<std::string>> links;
    // Per device: "CPU Affinity" and "NUMA Affinity" as printed; empty where absent.
    std::vector<std::string> cpuAffinity;
    std::vector<std::string> numaAffinity;

    bool isGpu(std::size_t device) const { return devices[device].starts_with("GPU"); }
};

// Errors name `source`, the line and what a cell may be (X, NV#, PIX, PXB, PHB, NODE, SYS).
Result<NvidiaTopology> parseNvidiaTopo(std::string_view text, std::string_view source);

// Every GPU pair (lower index first) and every GPU-NIC pair, as the probe file lists them.
std::vector<TopoLink> topoLinks(const NvidiaTopology &topology);

// NV# is NVLink; every other class crosses PCIe (PIX, PXB, PHB, NODE, SYS).
LinkKind topoLinkKind(std::string_view cell);
// The # of NV#; 0 for a PCIe class.
int nvlinkCount(std::string_view cell);

} // namespace hetplan
