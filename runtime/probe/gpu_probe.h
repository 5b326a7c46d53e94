#pragma once

// The GPU half of hetplan-probe (docs/probe.md, "GPU hosts"). Built only with CUDA; callers
// ask runtime/cuda/device.h first whether a device is usable.

#include "core/io/probe_file.h"
#include "runtime/probe/probe_shapes.h"

#include <string>
#include <vector>

namespace hetplan::runtime::probe {

// Every GPU of this process: name, memory, SM count, the catalog type it matches, bf16 GEMM
// TFLOPS (cublasGemmEx, fp32 compute) at `shapes`, and device memory bandwidth (a triad).
Result<std::vector<ProbedGpu>> probeGpus(const std::vector<GemmShape> &shapes, int repetitions,
                                         bool quick);

// Every pair of this host's GPUs, both by peer copies (cudaMemcpyPeerAsync, timed with events)
// and by NCCL send/recv (one communicator per GPU from ncclCommInitAll). Endpoints name
// `hostName`. Empty with fewer than two GPUs.
Result<std::vector<ProbedPair>>
probeGpuPairs(const std::string &hostName, const std::vector<double> &sizesBytes, int repetitions);

} // namespace hetplan::runtime::probe
