// Default transport figures of the `hetplan` model. Efficiencies are achieved all-reduce bus
// bandwidth over the link's nominal per-direction bandwidth, as nccl-tests reports it
// (doc/PERFORMANCE.md of nccl-tests); the sources are public measurements named in each entry.
#include "core/model/transport_figures.h"

#include "core/model/cluster.h"

#include <array>

namespace hetplan {
namespace {

const std::array<TransportFigures, 5> &defaults()
{
    static const std::array<TransportFigures, 5> table{{
        {LinkKind::NvLink, 0.78, 0.0, 1.0, 0.0, 0.0,
         "nccl-tests all_reduce_perf on one 8x A100 NVLink 3 box: 232.5 GB/s bus bandwidth "
         "(NVIDIA/nccl-tests issue 175) against 300 GB/s per direction = 0.78. Inside one "
         "machine only: no ring-scale loss; the machine's intra latency is the per-hop figure."},
        {LinkKind::Pcie, 0.78, 0.0, 1.0, 0.0, 0.0,
         "All-reduce bus bandwidth of 2 GPUs behind one PCIe 4.0 x16 switch is about 25 GB/s "
         "against 32 GB/s nominal = 0.78 (docs/cost-models.md, GeForce boxes). Inside one "
         "machine only, as NVLink."},
        {LinkKind::InfiniBand, 0.95, 6.6, 1.0, 0.05, 0.0,
         "NCCL maintainers: 24 GB/s inter-node bus bandwidth per 200 Gb/s HDR NIC (25 GB/s; "
         "NVIDIA/nccl issue 412), 192 GB/s on a DGX A100's 8x 200 Gb/s (NVIDIA/nccl issue "
         "1576), 46-48 GB/s per 400 Gb/s NDR NIC (NVIDIA/nccl-tests issue 290): 0.94-0.96. "
         "Latency: NCCL's tuning model charges 6.6 us per network hop of a ring (Simple "
         "protocol, src/graph/tuning.cc). Scale: 12 HDR nodes reached 15.3 GB/s against 24 "
         "with other traffic on the fabric (issue 412), an upper bound on the loss; 5 % per "
         "doubling is our estimate below it."},
        {LinkKind::Roce, 0.75, 6.6, 1.0, 0.15, 0.0,
         "Two A100 nodes with 8x 100 Gb/s RoCE reached 600 Gb/s all-reduce bus bandwidth of 800 "
         "(NVIDIA/nccl issue 495) = 0.75; Holmes Table 1 trains the same GPT 3.6B on 4x 8 A100 "
         "at 197 TFLOPS over 200 Gb/s InfiniBand and 160 over 200 Gb/s RoCE (0.81 of it). "
         "Scale: 8x 100 Gb/s RoCE A100 nodes fell from 70 GB/s on 3 nodes to 58 on 4-5 and 40 "
         "on 6 (NVIDIA/nccl-tests issue 169); 15 % per doubling is the milder end of that."},
        {LinkKind::Ethernet, 0.5, 20.0, 1.0, 0.15, 0.0,
         "NCCL over TCP sockets: 4-6 GB/s all-reduce bus bandwidth on 100 Gb/s (12.5 GB/s) "
         "between 4 V100 nodes (NVIDIA/nccl issue 450) = 0.32-0.48; 60 of 100 Gb/s on AWS EFA "
         "with rings (NVIDIA/nccl-tests issue 22) = 0.6. Latency: an 8-byte broadcast over "
         "sockets between two nodes takes 38-46 us (NVIDIA/nccl-tests issue 82), about half "
         "of it beyond the wire and switch latency a cluster file gives. Scale as RoCE (lossy "
         "Ethernet congestion)."},
    }};
    return table;
}

} // namespace

std::span<const TransportFigures> defaultTransports()
{
    return defaults();
}

const TransportFigures &transportFigures(const Cluster &cluster, LinkKind kind)
{
    for (const TransportFigures &own : cluster.transports)
        if (own.kind == kind)
            return own;
    for (const TransportFigures &figures : defaults())
        if (figures.kind == kind)
            return figures;
    return defaults().back();
}

} // namespace hetplan
