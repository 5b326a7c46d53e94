#pragma once

// What the GPU model's kernels share: bf16 views, launch shapes, block-wide reductions and the
// synthetic tokens of runtime/model/model_init.cpp.

#include "runtime/cuda/model/kernels.h"

#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace hetplan::runtime::cuda::kernels {

constexpr int kThreads = 256; // per block; a multiple of the warp size, at most 32 warps

inline __nv_bfloat16 *bf(Bf16 *p)
{
    return reinterpret_cast<__nv_bfloat16 *>(p);
}
inline const __nv_bfloat16 *bf(const Bf16 *p)
{
    return reinterpret_cast<const __nv_bfloat16 *>(p);
}

// Blocks for a grid-stride loop over n elements (enough to fill any GPU, never above the limit).
inline unsigned gridFor(std::size_t n)
{
    const std::size_t blocks = (n + kThreads - 1) / kThreads;
    return unsigned(blocks < 65536 ? (blocks == 0 ? 1 : blocks) : 65536);
}

struct SumOp
{
    __device__ float operator()(float a, float b) const { return a + b; }
};
struct MaxOp
{
    __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

// Reduces one value per thread over the block; every thread gets the result. `shared` holds 32
// floats; consecutive calls may reuse it.
template<typename Op>
__device__ float blockReduce(float value, Op op, float identity, float *shared)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        value = op(value, __shfl_xor_sync(0xffffffffU, value, offset));
    const int lane = int(threadIdx.x) & 31;
    const int warp = int(threadIdx.x) >> 5;
    __syncthreads(); // the previous call's readers are done with `shared`
    if (lane == 0)
        shared[warp] = value;
    __syncthreads();
    value = lane < int(blockDim.x >> 5) ? shared[lane] : identity;
    for (int offset = 16; offset > 0; offset >>= 1)
        value = op(value, __shfl_xor_sync(0xffffffffU, value, offset));
    return value;
}

// model_init.cpp's splitmix64 counter hash and syntheticToken, bit for bit (integer arithmetic
// only); the GPU tests compare the embedding and loss with the CPU model's.
__device__ inline std::uint64_t mixBits(std::uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

__device__ inline int syntheticTokenOnDevice(std::uint64_t seed, std::int64_t sample, int position,
                                             int vocab)
{
    constexpr std::uint64_t kTokenStream = 0x746f6b656e73ULL; // "tokens"
    const std::uint64_t sampleKey
        = mixBits(mixBits(mixBits(seed) ^ kTokenStream) ^ std::uint64_t(sample));
    const std::uint64_t start = mixBits(sampleKey) % std::uint64_t(vocab);
    const std::uint64_t stride = 1 + mixBits(sampleKey + 1) % 4;
    const std::uint64_t noise = mixBits(sampleKey ^ mixBits(std::uint64_t(position) + 2));
    if (noise % 8 == 0)
        return int((noise >> 3) % std::uint64_t(vocab));
    return int((start + std::uint64_t(position) * stride) % std::uint64_t(vocab));
}

// The token at row t of a micro-batch ([samples · seqLen] rows); `shift` 0 for inputs, 1 for
// targets.
__device__ inline int tokenAt(const TokenSource &s, std::size_t t, int shift)
{
    const auto sample = std::int64_t(t / std::size_t(s.seqLen));
    const int position = int(t % std::size_t(s.seqLen));
    return syntheticTokenOnDevice(s.seed, s.firstSample + sample, position + shift, s.vocab);
}

} // namespace hetplan::runtime::cuda::kernels
