#pragma once

#include "core/io/probe_file.h"
#include "runtime/probe/probe_shapes.h"

#include <string>
#include <vector>

namespace hetplan::runtime::probe {

// GEMM throughput through the worker's BLAS (OpenBLAS sgemm, `blasThreads` threads), one
// figure per shape, each repetition as many calls as last `repetitionS`.
std::vector<GemmFigure> cpuGemm(const std::vector<GemmShape> &shapes, int repetitions,
                                int blasThreads, double repetitionS);

// Memory bandwidth of a triad a = b + s·c over three arrays of `arrayMiB` each, or when 0 of
// twice the last-level cache (at most 128 MiB when quick).
MemoryFigure cpuMemory(int repetitions, bool quick, int arrayMiB);

// "model name" of /proc/cpuinfo (empty where there is none) and the cores this process may use.
std::string cpuModel();
int cpuCores();

} // namespace hetplan::runtime::probe
