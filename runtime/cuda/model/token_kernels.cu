// The embedding's kernels: the gather of input rows and the scatter-add of their gradients, for
// the synthetic tokens made on the device (kernels.h; model_shard.cpp does the same on the CPU).

#include "runtime/cuda/model/kernel_support.cuh"

namespace hetplan::runtime::cuda::kernels {

namespace {

// One block per token row.
__global__ void embeddingGatherKernel(const float *table, TokenSource tokens, int width, float *x)
{
    const int token = tokenAt(tokens, blockIdx.x, 0);
    const float *from = table + std::size_t(token) * std::size_t(width);
    float *to = x + std::size_t(blockIdx.x) * std::size_t(width);
    for (int i = int(threadIdx.x); i < width; i += int(blockDim.x))
        to[i] = from[i];
}

// One thread per column, adding the rows in order: a token seen twice gets its sums in the same
// order every run (atomics would not).
__global__ void embeddingScatterAddKernel(const float *dx, TokenSource tokens, int width,
                                          float *grad)
{
    const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= width)
        return;
    const std::size_t rows = std::size_t(tokens.samples) * std::size_t(tokens.seqLen);
    for (std::size_t t = 0; t < rows; ++t) {
        const int token = tokenAt(tokens, t, 0);
        grad[std::size_t(token) * std::size_t(width) + std::size_t(i)]
            += dx[t * std::size_t(width) + std::size_t(i)];
    }
}

} // namespace

void embeddingGather(const float *table, const TokenSource &tokens, int width, float *x,
                     Stream stream)
{
    const unsigned rows = unsigned(tokens.samples) * unsigned(tokens.seqLen);
    embeddingGatherKernel<<<rows, kThreads, 0, stream>>>(table, tokens, width, x);
}

void embeddingScatterAdd(const float *dx, const TokenSource &tokens, int width, float *grad,
                         Stream stream)
{
    const unsigned blocks = unsigned((width + kThreads - 1) / kThreads);
    embeddingScatterAddKernel<<<blocks, kThreads, 0, stream>>>(dx, tokens, width, grad);
}

} // namespace hetplan::runtime::cuda::kernels
