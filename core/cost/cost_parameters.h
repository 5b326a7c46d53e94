#pragma once

namespace hetplan {

// Figures the realistic `hetplan` model adds to the papers' structure. The model owns one
// copy and hands it to its terms, so a calibrated set (per-transport efficiencies, fitted
// figures) is a different value passed in, not a change to the terms. Defaults are documented
// where they come from; none is tuned to a benchmark.
struct HetPlanParameters
{
    // CUDA context, cuBLAS/cuDNN workspaces and allocator slack per process: PyTorch reports
    // 0.5–1 GiB of context on current GPUs before the first tensor; 1 GiB keeps a margin.
    double cudaContextGiB = 1.0;
    // NCCL buffers per communicator a GPU belongs to (TP group, pipeline neighbours, DP
    // group): NCCL_BUFFSIZE 4 MiB per channel per peer, up to 32 channels in both directions,
    // plus proxy and work FIFO memory come to a few hundred MiB; 0.5 GiB per group.
    double ncclBuffersGiB = 0.5;
    // Achieved / peak memory bandwidth of a weight-and-KV scan (STREAM-like kernels reach
    // 80–90% of the HBM/GDDR figure on data-centre and consumer GPUs).
    double achievedMemoryBandwidthFraction = 0.8;
};

} // namespace hetplan
