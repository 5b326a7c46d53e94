// The serving shard's kernels (runtime/cuda/model/serve_kernels.h) on the host, beside
// cuda_model_emulation.cpp's: the same arithmetic as serve_kernels.cu in plain C++, thread for
// thread where the order of a sum matters (the attention's per-thread partials and their tree),
// so that tst_cuda_serve runs the serving shard's host code where no GPU is.

#include "cuda_emulation_log.h"
#include "runtime/cuda/model/serve_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace hetplan::runtime::cuda::kernels {

namespace {

void launched(const char *kernel, const void *stream)
{
    emulation::note({emulation::Kind::Kernel, stream, nullptr, kernel, 0});
}

// serve_kernels.cu's treeReduce: partial[t] for each thread t, combined by halving strides.
template<typename Op>
float treeReduce(std::vector<float> partial, Op op)
{
    for (std::size_t stride = partial.size() / 2; stride > 0; stride >>= 1)
        for (std::size_t t = 0; t < stride; ++t)
            partial[t] = op(partial[t], partial[t + stride]);
    return partial[0];
}

} // namespace

void embeddingRows(const float *table, const int *tokens, int rows, int width, float *x,
                   Stream stream)
{
    launched("embeddingRows", stream);
    const auto w = std::size_t(width);
    for (std::size_t r = 0; r < std::size_t(rows); ++r)
        std::memcpy(x + r * w, table + std::size_t(tokens[r]) * w, w * sizeof(float));
}

void rotaryRows(const float *x, int rows, int heads, int headDim, const float *cosSin,
                const int *positions, Bf16 *y, Stream stream)
{
    launched("rotaryRows", stream);
    const auto d = std::size_t(headDim);
    const std::size_t width = std::size_t(heads) * d;
    for (std::size_t r = 0; r < std::size_t(rows); ++r) {
        const float *table = cosSin + std::size_t(positions[r]) * d;
        for (std::size_t at = r * width; at < (r + 1) * width; at += d) {
            for (std::size_t j = 0; j + 1 < d; j += 2) {
                y[at + j] = cuda::toBf16(x[at + j] * table[j] - x[at + j + 1] * table[j + 1]);
                y[at + j + 1] = cuda::toBf16(x[at + j] * table[j + 1] + x[at + j + 1] * table[j]);
            }
            if (d % 2 == 1)
                y[at + d - 1] = cuda::toBf16(x[at + d - 1]);
        }
    }
}

void storeKv(const Bf16 *k, const Bf16 *v, int rows, int kvWidth, const int *cacheRows, Bf16 *keys,
             Bf16 *values, Stream stream)
{
    launched("storeKv", stream);
    const auto w = std::size_t(kvWidth);
    for (std::size_t r = 0; r < std::size_t(rows); ++r) {
        std::copy_n(k + r * w, w, keys + std::size_t(cacheRows[r]) * w);
        std::copy_n(v + r * w, w, values + std::size_t(cacheRows[r]) * w);
    }
}

Status decodeAttention(const DecodeAttention &shape, const Bf16 *q, const Bf16 *keys,
                       const Bf16 *values, const int *positions, const int *cacheRows, Bf16 *out,
                       Stream stream)
{
    launched("decodeAttention", stream);
    constexpr std::size_t threads = kDecodeAttentionThreads;
    const auto d = std::size_t(shape.headDim);
    const std::size_t kvWidth = std::size_t(shape.kvHeads) * d;
    const int group = shape.qHeads / shape.kvHeads;
    std::vector<float> scores(std::size_t(shape.capacityTokens));
    std::vector<float> partial(threads);
    for (std::size_t r = 0; r < std::size_t(shape.rows); ++r) {
        const auto seen = std::size_t(positions[r]) + 1;
        const std::size_t first = std::size_t(cacheRows[r] - positions[r]);
        for (std::size_t h = 0; h < std::size_t(shape.qHeads); ++h) {
            const std::size_t kvColumn = h / std::size_t(group) * d;
            const Bf16 *query = q + r * std::size_t(shape.qHeads) * d + h * d;
            for (std::size_t t = 0; t < threads; ++t) {
                float largest = -INFINITY;
                for (std::size_t j = t; j < seen; j += threads) {
                    const Bf16 *key = keys + (first + j) * kvWidth + kvColumn;
                    float dot = 0;
                    for (std::size_t i = 0; i < d; ++i)
                        dot += fromBf16(query[i]) * fromBf16(key[i]);
                    scores[j] = dot * shape.scale;
                    largest = std::max(largest, scores[j]);
                }
                partial[t] = largest;
            }
            const float largest
                = treeReduce(partial, [](float a, float b) { return std::fmax(a, b); });
            for (std::size_t t = 0; t < threads; ++t) {
                float sum = 0;
                for (std::size_t j = t; j < seen; j += threads) {
                    scores[j] = std::exp(scores[j] - largest);
                    sum += scores[j];
                }
                partial[t] = sum;
            }
            const float inverse
                = 1.0f / treeReduce(partial, [](float a, float b) { return a + b; });
            Bf16 *row = out + r * std::size_t(shape.qHeads) * d + h * d;
            for (std::size_t i = 0; i < d; ++i) {
                float acc = 0;
                for (std::size_t j = 0; j < seen; ++j)
                    acc += scores[j] * fromBf16(values[(first + j) * kvWidth + kvColumn + i]);
                row[i] = cuda::toBf16(acc * inverse);
            }
        }
    }
    return okStatus();
}

} // namespace hetplan::runtime::cuda::kernels
