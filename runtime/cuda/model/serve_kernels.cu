// The serving shard's kernels (serve_kernels.h): rows with their own token, position and KV-cache
// row, and the attention of new rows against the cache.

#include "runtime/cuda/cuda_status.h"
#include "runtime/cuda/model/kernel_support.cuh"
#include "runtime/cuda/model/serve_kernels.h"

#include <string>

namespace hetplan::runtime::cuda::kernels {

namespace {

constexpr std::size_t kDefaultSharedBytes = 48 * 1024;

// One block per row.
__global__ void embeddingRowsKernel(const float *table, const int *tokens, int width, float *x)
{
    const float *from = table + std::size_t(tokens[blockIdx.x]) * std::size_t(width);
    float *to = x + std::size_t(blockIdx.x) * std::size_t(width);
    for (int i = int(threadIdx.x); i < width; i += int(blockDim.x))
        to[i] = from[i];
}

// One block per row; each thread rotates pairs (2i, 2i + 1) of every head.
__global__ void rotaryRowsKernel(const float *x, int heads, int headDim, const float *cosSin,
                                 const int *positions, __nv_bfloat16 *y)
{
    const std::size_t width = std::size_t(heads) * std::size_t(headDim);
    const std::size_t base = std::size_t(blockIdx.x) * width;
    const float *table = cosSin + std::size_t(positions[blockIdx.x]) * std::size_t(headDim);
    const int pairs = headDim / 2;
    for (int i = int(threadIdx.x); i < heads * pairs; i += int(blockDim.x)) {
        const int head = i / pairs;
        const int j = 2 * (i % pairs);
        const std::size_t at = base + std::size_t(head) * std::size_t(headDim) + std::size_t(j);
        const float c = table[j];
        const float s = table[j + 1];
        y[at] = __float2bfloat16_rn(x[at] * c - x[at + 1] * s);
        y[at + 1] = __float2bfloat16_rn(x[at] * s + x[at + 1] * c);
    }
    if (headDim % 2 == 1)
        for (int head = int(threadIdx.x); head < heads; head += int(blockDim.x)) {
            const std::size_t at = base + std::size_t(head + 1) * std::size_t(headDim) - 1;
            y[at] = __float2bfloat16_rn(x[at]);
        }
}

// One block per row.
__global__ void storeKvKernel(const __nv_bfloat16 *k, const __nv_bfloat16 *v, int kvWidth,
                              const int *cacheRows, __nv_bfloat16 *keys, __nv_bfloat16 *values)
{
    const std::size_t from = std::size_t(blockIdx.x) * std::size_t(kvWidth);
    const std::size_t to = std::size_t(cacheRows[blockIdx.x]) * std::size_t(kvWidth);
    for (int i = int(threadIdx.x); i < kvWidth; i += int(blockDim.x)) {
        keys[to + i] = k[from + i];
        values[to + i] = v[from + i];
    }
}

// The threads' partials in `partial` combined by halving strides (the emulation's order).
template<typename Op>
__device__ float treeReduce(float value, Op op, float *partial)
{
    const int t = int(threadIdx.x);
    partial[t] = value;
    __syncthreads();
    for (int stride = kDecodeAttentionThreads / 2; stride > 0; stride >>= 1) {
        if (t < stride)
            partial[t] = op(partial[t], partial[t + stride]);
        __syncthreads();
    }
    const float result = partial[0];
    __syncthreads(); // every thread has read it before `partial` is reused
    return result;
}

// Block (row r, query head h) of serve_kernels.h's decodeAttention.
__global__ void decodeAttentionKernel(DecodeAttention shape, const __nv_bfloat16 *q,
                                      const __nv_bfloat16 *keys, const __nv_bfloat16 *values,
                                      const int *positions, const int *cacheRows,
                                      __nv_bfloat16 *out)
{
    extern __shared__ float scores[]; // [position + 1]
    __shared__ float partial[kDecodeAttentionThreads];
    const int r = int(blockIdx.x) / shape.qHeads;
    const int h = int(blockIdx.x) % shape.qHeads;
    const int t = int(threadIdx.x);
    const int d = shape.headDim;
    const int seen = positions[r] + 1;
    const std::size_t first = std::size_t(cacheRows[r] - positions[r]);
    const std::size_t kvWidth = std::size_t(shape.kvHeads) * std::size_t(d);
    const std::size_t kvColumn = std::size_t(h / (shape.qHeads / shape.kvHeads)) * std::size_t(d);
    const __nv_bfloat16 *query
        = q + std::size_t(r) * std::size_t(shape.qHeads) * std::size_t(d) + std::size_t(h) * d;

    float largest = -INFINITY;
    for (int j = t; j < seen; j += kDecodeAttentionThreads) {
        const __nv_bfloat16 *key = keys + (first + std::size_t(j)) * kvWidth + kvColumn;
        float dot = 0;
        for (int i = 0; i < d; ++i)
            dot += __bfloat162float(query[i]) * __bfloat162float(key[i]);
        scores[j] = dot * shape.scale;
        largest = fmaxf(largest, scores[j]);
    }
    largest = treeReduce(largest, MaxOp{}, partial);
    float sum = 0;
    for (int j = t; j < seen; j += kDecodeAttentionThreads) {
        scores[j] = expf(scores[j] - largest);
        sum += scores[j];
    }
    const float inverse = 1.0f / treeReduce(sum, SumOp{}, partial); // also orders `scores`
    __nv_bfloat16 *row = out + std::size_t(r) * std::size_t(shape.qHeads) * std::size_t(d)
                         + std::size_t(h) * std::size_t(d);
    for (int i = t; i < d; i += kDecodeAttentionThreads) {
        float acc = 0;
        for (int j = 0; j < seen; ++j)
            acc += scores[j]
                   * __bfloat162float(
                       values[(first + std::size_t(j)) * kvWidth + kvColumn + std::size_t(i)]);
        row[i] = __float2bfloat16_rn(acc * inverse);
    }
}

} // namespace

void embeddingRows(const float *table, const int *tokens, int rows, int width, float *x,
                   Stream stream)
{
    if (rows > 0)
        embeddingRowsKernel<<<unsigned(rows), kThreads, 0, stream>>>(table, tokens, width, x);
}

void rotaryRows(const float *x, int rows, int heads, int headDim, const float *cosSin,
                const int *positions, Bf16 *y, Stream stream)
{
    if (rows > 0)
        rotaryRowsKernel<<<unsigned(rows), kThreads, 0, stream>>>(x, heads, headDim, cosSin,
                                                                  positions, bf(y));
}

void storeKv(const Bf16 *k, const Bf16 *v, int rows, int kvWidth, const int *cacheRows, Bf16 *keys,
             Bf16 *values, Stream stream)
{
    if (rows > 0)
        storeKvKernel<<<unsigned(rows), kThreads, 0, stream>>>(bf(k), bf(v), kvWidth, cacheRows,
                                                               bf(keys), bf(values));
}

Status decodeAttention(const DecodeAttention &shape, const Bf16 *q, const Bf16 *keys,
                       const Bf16 *values, const int *positions, const int *cacheRows, Bf16 *out,
                       Stream stream)
{
    if (shape.rows == 0)
        return okStatus();
    const std::size_t bytes = std::size_t(shape.capacityTokens) * sizeof(float);
    if (bytes > kDefaultSharedBytes) {
        std::string what = "giving the decode attention ";
        what += std::to_string(bytes);
        what += " bytes of shared memory for sequences of ";
        what += std::to_string(shape.capacityTokens);
        what += " tokens";
        if (Status s = cudaCall(cudaFuncSetAttribute(decodeAttentionKernel,
                                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                     int(bytes)),
                                what);
            !s)
            return s;
    }
    const unsigned blocks = unsigned(shape.rows) * unsigned(shape.qHeads);
    decodeAttentionKernel<<<blocks, kDecodeAttentionThreads, bytes, stream>>>(
        shape, bf(q), bf(keys), bf(values), positions, cacheRows, bf(out));
    return okStatus();
}

} // namespace hetplan::runtime::cuda::kernels
