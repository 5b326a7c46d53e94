#pragma once

// Element-wise device work of the worker's GPU backend, enqueued on a caller's stream: packing
// scaled gradients for their all-reduce, and the fp32 ⇄ bf16 conversion at stage boundaries
// (hops carry fp32, as the CPU backend's do; the GPU model stores activations as bf16).
// Each returns the launch's status as a CUDA error code (0: launched).

#include <cstddef>
#include <cstdint>

struct CUstream_st;

namespace hetplan::runtime::cuda {

// data[i] *= factor
int scaleFloats(float *data, std::size_t count, float factor, CUstream_st *stream);
// out[i] = float(in[i]); `in` holds bf16 bit patterns.
int bf16ToFloat(const std::uint16_t *in, std::size_t count, float *out, CUstream_st *stream);
// out[i] = bf16 of in[i], rounded to nearest even.
int floatToBf16(const float *in, std::size_t count, std::uint16_t *out, CUstream_st *stream);

} // namespace hetplan::runtime::cuda
