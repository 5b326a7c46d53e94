#pragma once

// A large heterogeneous fleet built in code, for scaling runs up to the format's limit
// (kMaxMachines machines of 8 GPUs = 16,384 GPUs). Shared by the benchmark and the tests that
// plan at that scale, so both talk about the same cluster.

#include "core/io/catalog_json.h"
#include "core/model/cluster.h"
#include "core/model/workload.h"

#include <string>

namespace hetplan::bench {

// `machines` boxes of 8 GPUs in racks of 32 behind a top-of-rack switch, 8 racks to a pod
// spine, the spines under one core switch: a tree, as data centres are cabled, not a clique.
// Each rack holds one kind of box, in a repeating mix of 8 racks: 2 of H100 and 2 of A100
// (NVLink inside, InfiniBand to the rack), 3 of RTX 4090 and 1 of RTX 3090 (PCIe inside,
// Ethernet to the rack). Bandwidths follow common NICs: 8×100 Gb/s InfiniBand per H100 box,
// 4×100 Gb/s per A100 box, 100 GbE per 4090 box, 25 GbE per 3090 box; the uplinks
// aggregate a rack or pod with some oversubscription, so a pipeline crossing pods pays for it.
inline Cluster benchFleet(int machines)
{
    struct Rack
    {
        const char *gpu;
        NicKind nic;
        LinkKind uplink;
        double machineGBps; // machine to its top-of-rack switch
        double latencyUs;
    };
    static constexpr Rack kMix[] = {
        {"H100-80G", NicKind::InfiniBand, LinkKind::InfiniBand, 100, 2},
        {"A100-80G", NicKind::InfiniBand, LinkKind::InfiniBand, 50, 2},
        {"RTX4090-24G", NicKind::Ethernet, LinkKind::Ethernet, 12.5, 10},
        {"RTX3090-24G", NicKind::Ethernet, LinkKind::Ethernet, 3.125, 15},
        {"A100-80G", NicKind::InfiniBand, LinkKind::InfiniBand, 50, 2},
        {"RTX4090-24G", NicKind::Ethernet, LinkKind::Ethernet, 12.5, 10},
        {"H100-80G", NicKind::InfiniBand, LinkKind::InfiniBand, 100, 2},
        {"RTX4090-24G", NicKind::Ethernet, LinkKind::Ethernet, 12.5, 10},
    };
    constexpr int kPerRack = 32;
    constexpr int kRacksPerPod = 8;
    constexpr double kRackUplinkGBps = 400; // top-of-rack to pod spine
    constexpr double kPodUplinkGBps = 800;  // pod spine to core
    constexpr int kGpusPerMachine = 8;

    Cluster cluster;
    cluster.name = "fleet-" + std::to_string(machines * kGpusPerMachine);
    cluster.description = "generated: racks of one box type behind top-of-rack, pod and core "
                          "switches";
    cluster.switches.push_back({"core", {}});
    for (int m = 0; m < machines; ++m) {
        const int rack = m / kPerRack;
        const int pod = rack / kRacksPerPod;
        const std::string rackName = "tor" + std::to_string(rack);
        const std::string podName = "spine" + std::to_string(pod);
        const Rack &kind = kMix[rack % std::size(kMix)];
        if (m % kPerRack == 0) {
            if (rack % kRacksPerPod == 0) {
                cluster.switches.push_back({podName, {}});
                cluster.links.push_back({podName, "core", LinkKind::Ethernet, kPodUplinkGBps, 5});
            }
            cluster.switches.push_back({rackName, {}});
            cluster.links.push_back({rackName, podName, kind.uplink, kRackUplinkGBps, 1});
        }
        const GpuType *type = builtinGpuCatalog().find(kind.gpu);
        Machine machine;
        machine.name = "r" + std::to_string(rack) + "m" + std::to_string(m % kPerRack);
        machine.gpu = kind.gpu;
        machine.count = kGpusPerMachine;
        machine.intra = type ? type->typicalIntra : IntraLink{};
        machine.nic = kind.nic;
        cluster.machines.push_back(std::move(machine));
        cluster.links.push_back({cluster.machines.back().name, rackName, kind.uplink,
                                 kind.machineGBps, kind.latencyUs});
    }
    return cluster;
}

// What such a fleet trains: 4096 sequences of 4096 tokens per iteration (16M tokens, the
// batch of recent 70B-class runs), micro-batch 1.
inline Workload fleetWorkload()
{
    Workload workload;
    workload.train.globalBatch = 4096;
    workload.train.seqLen = 4096;
    return workload;
}

} // namespace hetplan::bench
