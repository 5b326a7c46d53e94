// Row-wise kernels of the GPU model, one block per row: RMSNorm and the cross-entropy (kernels.h;
// the CPU counterparts are in runtime/model/layer_kernels.cpp). The attention's softmax is in
// attention_kernels.cu.

#include "runtime/cuda/model/kernel_support.cuh"

namespace hetplan::runtime::cuda::kernels {

namespace {

constexpr float kRmsEpsilon = 1e-5f; // as layer_kernels.cpp (Llama)

__global__ void rmsNormForwardKernel(const float *x, const float *gain, int width,
                                     __nv_bfloat16 *normed, float *invRms, __nv_bfloat16 *xCopy)
{
    __shared__ float shared[32];
    const std::size_t base = std::size_t(blockIdx.x) * std::size_t(width);
    float sumSq = 0;
    for (int i = int(threadIdx.x); i < width; i += int(blockDim.x))
        sumSq += x[base + i] * x[base + i];
    sumSq = blockReduce(sumSq, SumOp{}, 0.0f, shared);
    const float inv = 1.0f / sqrtf(sumSq / float(width) + kRmsEpsilon);
    if (threadIdx.x == 0)
        invRms[blockIdx.x] = inv;
    for (int i = int(threadIdx.x); i < width; i += int(blockDim.x)) {
        normed[base + i] = __float2bfloat16_rn(x[base + i] * inv * gain[i]);
        if (xCopy != nullptr)
            xCopy[base + i] = __float2bfloat16_rn(x[base + i]);
    }
}

// dx += inv·(dy∘gain − x̂·mean(dy∘gain∘x̂)), x̂ = x·inv.
__global__ void rmsNormBackwardKernel(const float *dy, const __nv_bfloat16 *x, const float *invRms,
                                      const float *gain, int width, float *dx)
{
    __shared__ float shared[32];
    const std::size_t base = std::size_t(blockIdx.x) * std::size_t(width);
    const float inv = invRms[blockIdx.x];
    float dot = 0;
    for (int i = int(threadIdx.x); i < width; i += int(blockDim.x))
        dot += dy[base + i] * gain[i] * (__bfloat162float(x[base + i]) * inv);
    dot = blockReduce(dot, SumOp{}, 0.0f, shared);
    const float meanDot = dot / float(width);
    for (int i = int(threadIdx.x); i < width; i += int(blockDim.x)) {
        const float xi = __bfloat162float(x[base + i]);
        dx[base + i] += inv * (dy[base + i] * gain[i] - xi * inv * meanDot);
    }
}

// partials[c][i] = Σ over the rows of chunk c (blockIdx.y), in order, of dy·x̂: one thread per
// column.
__global__ void rmsNormGainPartialKernel(const float *dy, const __nv_bfloat16 *x,
                                         const float *invRms, int rows, int width, float *partials)
{
    const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= width)
        return;
    const int chunk = int(blockIdx.y);
    const int begin = int(std::int64_t(rows) * chunk / kGainChunks);
    const int end = int(std::int64_t(rows) * (chunk + 1) / kGainChunks);
    float sum = 0;
    for (int r = begin; r < end; ++r) {
        const std::size_t at = std::size_t(r) * std::size_t(width) + std::size_t(i);
        sum += dy[at] * (__bfloat162float(x[at]) * invRms[r]);
    }
    partials[std::size_t(chunk) * std::size_t(width) + std::size_t(i)] = sum;
}

// dGain[i] += Σ over the chunks, in order, of partials[c][i].
__global__ void rmsNormGainSumKernel(const float *partials, int width, float *dGain)
{
    const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= width)
        return;
    float sum = 0;
    for (int c = 0; c < kGainChunks; ++c)
        sum += partials[std::size_t(c) * std::size_t(width) + std::size_t(i)];
    dGain[i] += sum;
}

__global__ void crossEntropyKernel(const float *logits, TokenSource tokens, float lossScale,
                                   __nv_bfloat16 *dLogits, float *rowLoss)
{
    __shared__ float shared[32];
    const int vocab = tokens.vocab;
    const std::size_t base = std::size_t(blockIdx.x) * std::size_t(vocab);
    const int target = tokenAt(tokens, blockIdx.x, 1);
    float maxLogit = -INFINITY;
    for (int j = int(threadIdx.x); j < vocab; j += int(blockDim.x))
        maxLogit = fmaxf(maxLogit, logits[base + j]);
    maxLogit = blockReduce(maxLogit, MaxOp{}, -INFINITY, shared);
    float sumExp = 0;
    for (int j = int(threadIdx.x); j < vocab; j += int(blockDim.x))
        sumExp += expf(logits[base + j] - maxLogit);
    sumExp = blockReduce(sumExp, SumOp{}, 0.0f, shared);
    if (threadIdx.x == 0)
        rowLoss[blockIdx.x] = maxLogit - logits[base + target] + logf(sumExp);
    const float scale = lossScale / sumExp;
    for (int j = int(threadIdx.x); j < vocab; j += int(blockDim.x)) {
        float g = expf(logits[base + j] - maxLogit) * scale;
        if (j == target)
            g -= lossScale;
        dLogits[base + j] = __float2bfloat16_rn(g);
    }
}

} // namespace

void rmsNormForward(const float *x, const float *gain, int rows, int width, Bf16 *normed,
                    float *invRms, Bf16 *xCopy, Stream stream)
{
    rmsNormForwardKernel<<<unsigned(rows), kThreads, 0, stream>>>(x, gain, width, bf(normed),
                                                                  invRms, bf(xCopy));
}

void rmsNormBackward(const float *dNormed, const Bf16 *x, const float *invRms, const float *gain,
                     int rows, int width, float *dx, float *dGain, float *gainPartials,
                     Stream stream)
{
    rmsNormBackwardKernel<<<unsigned(rows), kThreads, 0, stream>>>(dNormed, bf(x), invRms, gain,
                                                                   width, dx);
    const unsigned columnBlocks = unsigned((width + kThreads - 1) / kThreads);
    rmsNormGainPartialKernel<<<dim3(columnBlocks, unsigned(kGainChunks)), kThreads, 0, stream>>>(
        dNormed, bf(x), invRms, rows, width, gainPartials);
    rmsNormGainSumKernel<<<columnBlocks, kThreads, 0, stream>>>(gainPartials, width, dGain);
}

void crossEntropy(const float *logits, const TokenSource &tokens, float lossScale, Bf16 *dLogits,
                  float *rowLoss, Stream stream)
{
    const unsigned rows = unsigned(tokens.samples) * unsigned(tokens.seqLen);
    crossEntropyKernel<<<rows, kThreads, 0, stream>>>(logits, tokens, lossScale, bf(dLogits),
                                                      rowLoss);
}

} // namespace hetplan::runtime::cuda::kernels
