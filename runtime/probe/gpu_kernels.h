#pragma once

// The probe's two kernels (gpu_kernels.cu), launched from its C++ files.

#include "core/base/result.h"

#include <cstddef>
#include <cuda_runtime_api.h>

namespace hetplan::runtime::probe {

// `count` bf16 values at `data`, distinct and small, not zeros: GPUs draw less power and may
// clock higher on zero operands.
Status fillDistinctBf16(void *data, std::size_t count, cudaStream_t stream);

// a = b + s·c over `count` float4s (3 × 16 bytes of memory traffic each), in `blocks` blocks of
// 256 threads, on `stream`.
Status launchTriad(void *a, const void *b, const void *c, std::size_t count, int blocks,
                   cudaStream_t stream);

} // namespace hetplan::runtime::probe
