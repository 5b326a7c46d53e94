// The embedding's kernels: the gather of input rows and the scatter-add of their gradients, for
// the synthetic tokens made on the device (kernels.h; model_shard.cpp does the same on the CPU).

#include "runtime/cuda/model/kernel_support.cuh"

namespace hetplan::runtime::cuda::kernels {

namespace {

// The input token of row `row`, hashed once per block by its first thread (the hash's 64-bit
// divisions stay out of the per-column loops).
__device__ int blockToken(const TokenSource &tokens, std::size_t row)
{
    __shared__ int token;
    if (threadIdx.x == 0)
        token = tokenAt(tokens, row, 0);
    __syncthreads();
    return token;
}

// One block per token row.
__global__ void embeddingGatherKernel(const float *table, TokenSource tokens, int width, float *x)
{
    const int token = blockToken(tokens, blockIdx.x);
    const float *from = table + std::size_t(token) * std::size_t(width);
    float *to = x + std::size_t(blockIdx.x) * std::size_t(width);
    for (int i = int(threadIdx.x); i < width; i += int(blockDim.x))
        to[i] = from[i];
}

// The scatter-add's index (embeddingIndexInts): per row its token and, grouped by token in row
// order, the rows; per token its row count, where its group starts, and a fill cursor.
struct EmbeddingIndex
{
    int *ids;       // [rows]
    int *unordered; // [rows] each token's rows, in arrival order
    int *sorted;    // [rows] each token's rows, in row order
    int *counts;    // [vocab]
    int *starts;    // [vocab] exclusive prefix sum of counts
    int *fill;      // [vocab]

    __host__ __device__ static EmbeddingIndex at(int *base, std::size_t rows, int vocab)
    {
        const auto v = std::size_t(vocab);
        return {base,
                base + rows,
                base + 2 * rows,
                base + 3 * rows,
                base + 3 * rows + v,
                base + 3 * rows + 2 * v};
    }
};

__global__ void zeroIntsKernel(int *x, std::size_t n)
{
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        x[i] = 0;
}

// Integer atomics: the counts are exact whatever the order.
__global__ void tokenCountKernel(TokenSource tokens, std::size_t rows, EmbeddingIndex index)
{
    for (std::size_t t = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; t < rows;
         t += std::size_t(gridDim.x) * blockDim.x) {
        const int token = tokenAt(tokens, t, 0);
        index.ids[t] = token;
        atomicAdd(index.counts + token, 1);
    }
}

// One block: each thread scans a contiguous run of tokens, the block scans the runs' totals.
__global__ void tokenStartKernel(int vocab, EmbeddingIndex index)
{
    __shared__ int totals[kThreads];
    const int per = (vocab + kThreads - 1) / kThreads;
    const int begin = min(int(threadIdx.x) * per, vocab);
    const int end = min(begin + per, vocab);
    int sum = 0;
    for (int v = begin; v < end; ++v)
        sum += index.counts[v];
    totals[threadIdx.x] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
        int running = 0;
        for (int i = 0; i < kThreads; ++i) {
            const int total = totals[i];
            totals[i] = running;
            running += total;
        }
    }
    __syncthreads();
    int running = totals[threadIdx.x];
    for (int v = begin; v < end; ++v) {
        index.starts[v] = running;
        running += index.counts[v];
    }
}

// Each row into its token's group, in whatever order the atomics give.
__global__ void tokenPlaceKernel(std::size_t rows, EmbeddingIndex index)
{
    for (std::size_t t = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; t < rows;
         t += std::size_t(gridDim.x) * blockDim.x) {
        const int token = index.ids[t];
        const int slot = atomicAdd(index.fill + token, 1);
        index.unordered[index.starts[token] + slot] = int(t);
    }
}

// Row order inside each group: a row's rank is the number of smaller rows in its group (rows
// are distinct), so the result does not depend on the atomics' order. k² per group of k rows.
__global__ void tokenRankKernel(std::size_t rows, EmbeddingIndex index)
{
    for (std::size_t t = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; t < rows;
         t += std::size_t(gridDim.x) * blockDim.x) {
        const int token = index.ids[t];
        const int start = index.starts[token];
        const int count = index.counts[token];
        int rank = 0;
        for (int j = 0; j < count; ++j)
            rank += index.unordered[start + j] < int(t) ? 1 : 0;
        index.sorted[start + rank] = int(t);
    }
}

// One block per position of `sorted`; the block at the start of a token's group adds the
// group's rows into the token's gradient row, column by column, in row order.
__global__ void embeddingScatterAddKernel(const float *dx, int width, EmbeddingIndex index,
                                          float *grad)
{
    const int row = index.sorted[blockIdx.x];
    const int token = index.ids[row];
    const int start = index.starts[token];
    if (int(blockIdx.x) != start)
        return; // the same answer for every thread of the block
    const int count = index.counts[token];
    float *to = grad + std::size_t(token) * std::size_t(width);
    for (int i = int(threadIdx.x); i < width; i += int(blockDim.x)) {
        float sum = to[i];
        for (int j = 0; j < count; ++j)
            sum += dx[std::size_t(index.sorted[start + j]) * std::size_t(width) + std::size_t(i)];
        to[i] = sum;
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
                         int *index, Stream stream)
{
    const std::size_t rows = std::size_t(tokens.samples) * std::size_t(tokens.seqLen);
    if (rows == 0)
        return;
    const EmbeddingIndex at = EmbeddingIndex::at(index, rows, tokens.vocab);
    const std::size_t vocab = std::size_t(tokens.vocab);
    // counts and fill (starts between them is overwritten whole)
    zeroIntsKernel<<<gridFor(vocab), kThreads, 0, stream>>>(at.counts, vocab);
    zeroIntsKernel<<<gridFor(vocab), kThreads, 0, stream>>>(at.fill, vocab);
    tokenCountKernel<<<gridFor(rows), kThreads, 0, stream>>>(tokens, rows, at);
    tokenStartKernel<<<1, kThreads, 0, stream>>>(tokens.vocab, at);
    tokenPlaceKernel<<<gridFor(rows), kThreads, 0, stream>>>(rows, at);
    tokenRankKernel<<<gridFor(rows), kThreads, 0, stream>>>(rows, at);
    embeddingScatterAddKernel<<<unsigned(rows), kThreads, 0, stream>>>(dx, width, at, grad);
}

} // namespace hetplan::runtime::cuda::kernels
