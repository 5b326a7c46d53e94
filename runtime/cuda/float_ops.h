#pragma once

// Element-wise device work of the worker's GPU backend, enqueued on a caller's stream: the
// fp32 ⇄ bf16 conversion between the executor's fp32 buffers and what travels on the wire in
// bf16 (docs/runtime.md, "Bytes on the wire"), gradients scaled as they are packed, and the
// GPU stage's edges (the GPU model stores activations as bf16). Each returns its
// launch status.

#include <cstddef>
#include <cstdint>
#include <cuda_runtime_api.h>

struct CUstream_st;

namespace hetplan::runtime::cuda {

// out[i] = float(in[i]); `in` holds bf16 bit patterns.
cudaError_t bf16ToFloat(const std::uint16_t *in, std::size_t count, float *out,
                        CUstream_st *stream);
// out[i] = bf16 of (in[i] · factor), rounded to nearest even; factor 1 converts exactly.
cudaError_t floatToBf16(const float *in, std::size_t count, std::uint16_t *out, CUstream_st *stream,
                        float factor = 1.0f);

} // namespace hetplan::runtime::cuda
