// The attention's fused softmax, forward and backward (kernels.h scaledCausalSoftmax;
// docs/gpu-model.md#kernels): Megatron-LM's scaled masked softmax with a causal mask, one block
// per score row, fp32 arithmetic on bf16 rows. The CPU counterpart is runtime/model's
// causal_attention.cpp.

#include "runtime/cuda/cuda_status.h"
#include "runtime/cuda/model/kernel_support.cuh"

#include <cstdint>
#include <string>

namespace hetplan::runtime::cuda::kernels {

namespace {

constexpr int kSoftmaxThreads = 128;                   // per row: 4 loads per thread at seqLen 4096
constexpr std::size_t kDefaultSharedBytes = 48 * 1024; // what a launch gets without opting in

// kWidth consecutive bf16 columns as floats: one 16-byte load when kWidth is 8.
template<int kWidth>
__device__ void loadColumns(const __nv_bfloat16 *at, float (&x)[kWidth])
{
    if constexpr (kWidth == 8) {
        const uint4 raw = *reinterpret_cast<const uint4 *>(at);
        const auto *pairs = reinterpret_cast<const __nv_bfloat162 *>(&raw);
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const float2 f = __bfloat1622float2(pairs[i]);
            x[2 * i] = f.x;
            x[2 * i + 1] = f.y;
        }
    } else {
#pragma unroll
        for (int i = 0; i < kWidth; ++i)
            x[i] = __bfloat162float(at[i]);
    }
}

// kWidth floats rounded to bf16 into consecutive columns: one 16-byte store when kWidth is 8.
template<int kWidth>
__device__ void storeColumns(const float (&x)[kWidth], __nv_bfloat16 *at)
{
    if constexpr (kWidth == 8) {
        uint4 raw;
        auto *pairs = reinterpret_cast<__nv_bfloat162 *>(&raw);
#pragma unroll
        for (int i = 0; i < 4; ++i)
            pairs[i] = __floats2bfloat162_rn(x[2 * i], x[2 * i + 1]);
        *reinterpret_cast<uint4 *>(at) = raw;
    } else {
#pragma unroll
        for (int i = 0; i < kWidth; ++i)
            at[i] = __float2bfloat16_rn(x[i]);
    }
}

// Both kernels: block b is row b of the batch, query position b mod seqLen, which sees keys
// [0, position]. Its columns are taken kWidth at a time ("groups", seqLen a multiple of kWidth);
// thread t owns groups t, t + blockDim, … and caches them in shared memory at
// [column mod kWidth][group], so that consecutive threads use consecutive banks. Only the thread
// that wrote a cached value reads it, so the block's reductions are the only barriers needed, and
// every read of a row ends before the first of them: rewriting the row in place is safe.
struct RowShape
{
    int groups = 0;        // of the whole row
    int visible = 0;       // columns up to the diagonal
    int visibleGroups = 0; // groups holding one of them
    std::size_t base = 0;  // the row's first element
};

template<int kWidth>
__device__ RowShape rowShape(int seqLen)
{
    RowShape r;
    r.groups = seqLen / kWidth;
    r.visible = int(blockIdx.x % unsigned(seqLen)) + 1;
    r.visibleGroups = (r.visible + kWidth - 1) / kWidth;
    r.base = std::size_t(blockIdx.x) * std::size_t(seqLen);
    return r;
}

// p = softmax(scale · s) over the visible columns, 0 beyond.
template<int kWidth>
__global__ void scaledCausalSoftmaxKernel(__nv_bfloat16 *scores, int seqLen, float scale)
{
    extern __shared__ __align__(16) unsigned char rowCache[];
    __shared__ float shared[32];
    float *cache = reinterpret_cast<float *>(rowCache); // scaled scores, then exponentials
    const RowShape r = rowShape<kWidth>(seqLen);
    __nv_bfloat16 *row = scores + r.base;
    float maxScore = -INFINITY;
    for (int g = int(threadIdx.x); g < r.visibleGroups; g += int(blockDim.x)) {
        float x[kWidth];
        loadColumns<kWidth>(row + std::size_t(g) * kWidth, x);
#pragma unroll
        for (int i = 0; i < kWidth; ++i) {
            const float s = g * kWidth + i < r.visible ? x[i] * scale : -INFINITY;
            cache[i * r.groups + g] = s;
            maxScore = fmaxf(maxScore, s);
        }
    }
    maxScore = blockReduce(maxScore, MaxOp{}, -INFINITY, shared);
    float sum = 0;
    for (int g = int(threadIdx.x); g < r.visibleGroups; g += int(blockDim.x)) {
#pragma unroll
        for (int i = 0; i < kWidth; ++i) {
            const float e = expf(cache[i * r.groups + g] - maxScore); // 0 where masked
            cache[i * r.groups + g] = e;
            sum += e;
        }
    }
    sum = blockReduce(sum, SumOp{}, 0.0f, shared);
    const float inverse = 1.0f / sum;
    for (int g = int(threadIdx.x); g < r.groups; g += int(blockDim.x)) {
        float p[kWidth];
#pragma unroll
        for (int i = 0; i < kWidth; ++i)
            p[i] = g * kWidth + i < r.visible ? cache[i * r.groups + g] * inverse : 0.0f;
        storeColumns<kWidth>(p, row + std::size_t(g) * kWidth);
    }
}

// dS = scale · P ∘ (dP − Σ P ∘ dP) over the visible columns, 0 beyond, over dP.
template<int kWidth>
__global__ void scaledCausalSoftmaxBackwardKernel(const __nv_bfloat16 *probs, __nv_bfloat16 *dProbs,
                                                  int seqLen, float scale)
{
    extern __shared__ __align__(16) unsigned char rowCache[];
    __shared__ float shared[32];
    auto *cachedP = reinterpret_cast<__nv_bfloat16 *>(rowCache); // bf16 as read: exact
    __nv_bfloat16 *cachedDp = cachedP + seqLen;
    const RowShape r = rowShape<kWidth>(seqLen);
    __nv_bfloat16 *dRow = dProbs + r.base;
    float dot = 0;
    for (int g = int(threadIdx.x); g < r.visibleGroups; g += int(blockDim.x)) {
        float p[kWidth];
        float dp[kWidth];
        loadColumns<kWidth>(probs + r.base + std::size_t(g) * kWidth, p);
        loadColumns<kWidth>(dRow + std::size_t(g) * kWidth, dp);
#pragma unroll
        for (int i = 0; i < kWidth; ++i) {
            const bool seen = g * kWidth + i < r.visible;
            cachedP[i * r.groups + g] = __float2bfloat16_rn(seen ? p[i] : 0.0f);
            cachedDp[i * r.groups + g] = __float2bfloat16_rn(seen ? dp[i] : 0.0f);
            dot += seen ? p[i] * dp[i] : 0.0f;
        }
    }
    dot = blockReduce(dot, SumOp{}, 0.0f, shared);
    for (int g = int(threadIdx.x); g < r.groups; g += int(blockDim.x)) {
        float ds[kWidth];
#pragma unroll
        for (int i = 0; i < kWidth; ++i) {
            const float p = __bfloat162float(cachedP[i * r.groups + g]);
            const float dp = __bfloat162float(cachedDp[i * r.groups + g]);
            ds[i] = g * kWidth + i < r.visible ? p * (dp - dot) * scale : 0.0f;
        }
        storeColumns<kWidth>(ds, dRow + std::size_t(g) * kWidth);
    }
}

// 16-byte loads need rows of a multiple of 8 columns that start on 16-byte boundaries.
bool sixteenByteRows(const void *a, const void *b, int seqLen)
{
    return seqLen % 8 == 0 && reinterpret_cast<std::uintptr_t>(a) % 16 == 0
           && reinterpret_cast<std::uintptr_t>(b) % 16 == 0;
}

// Lets `kernel` use `bytes` of dynamic shared memory where that is above the default.
template<typename Kernel>
Status allowSharedBytes(Kernel *kernel, std::size_t bytes, int seqLen)
{
    if (bytes <= kDefaultSharedBytes)
        return okStatus();
    std::string what = "giving the fused softmax ";
    what += std::to_string(bytes);
    what += " bytes of shared memory for rows of ";
    what += std::to_string(seqLen);
    what += " columns";
    return cudaCall(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)),
        what);
}

template<int kWidth>
Status launchSoftmax(Bf16 *scores, unsigned rows, int seqLen, float scale, Stream stream)
{
    const std::size_t bytes = std::size_t(seqLen) * sizeof(float);
    if (Status st = allowSharedBytes(scaledCausalSoftmaxKernel<kWidth>, bytes, seqLen); !st)
        return st;
    scaledCausalSoftmaxKernel<kWidth>
        <<<rows, kSoftmaxThreads, bytes, stream>>>(bf(scores), seqLen, scale);
    return okStatus();
}

template<int kWidth>
Status launchSoftmaxBackward(const Bf16 *probs, Bf16 *dProbs, unsigned rows, int seqLen,
                             float scale, Stream stream)
{
    const std::size_t bytes = 2 * std::size_t(seqLen) * sizeof(__nv_bfloat16);
    if (Status st = allowSharedBytes(scaledCausalSoftmaxBackwardKernel<kWidth>, bytes, seqLen); !st)
        return st;
    scaledCausalSoftmaxBackwardKernel<kWidth>
        <<<rows, kSoftmaxThreads, bytes, stream>>>(bf(probs), bf(dProbs), seqLen, scale);
    return okStatus();
}

} // namespace

Status scaledCausalSoftmax(Bf16 *scores, int matrices, int seqLen, float scale, Stream stream)
{
    const unsigned rows = unsigned(matrices) * unsigned(seqLen);
    if (rows == 0)
        return okStatus();
    if (sixteenByteRows(scores, scores, seqLen))
        return launchSoftmax<8>(scores, rows, seqLen, scale, stream);
    return launchSoftmax<1>(scores, rows, seqLen, scale, stream);
}

Status scaledCausalSoftmaxBackward(const Bf16 *probs, Bf16 *dProbs, int matrices, int seqLen,
                                   float scale, Stream stream)
{
    const unsigned rows = unsigned(matrices) * unsigned(seqLen);
    if (rows == 0)
        return okStatus();
    if (sixteenByteRows(probs, dProbs, seqLen))
        return launchSoftmaxBackward<8>(probs, dProbs, rows, seqLen, scale, stream);
    return launchSoftmaxBackward<1>(probs, dProbs, rows, seqLen, scale, stream);
}

} // namespace hetplan::runtime::cuda::kernels
