#pragma once

// The kernels a serving shard (cuda_serve_shard.h) adds to the GPU model's (kernels.h): rows
// carry their own token, position and KV-cache row instead of the training batch's implicit
// [samples × seqLen] layout, so a prefill chunk and a decoded token are the same launch. Each is
// the counterpart of a step of runtime/serve/serve_shard.cpp; the host emulation of the tests
// follows the same arithmetic (tests/runtime/cuda_serve_emulation.cpp).

#include "core/base/result.h"
#include "runtime/cuda/model/kernels.h"

namespace hetplan::runtime::cuda::kernels {

// x[r] = table[tokens[r]] (fp32 rows of `width`).
void embeddingRows(const float *table, const int *tokens, int rows, int width, float *x,
                   Stream stream);

// rotary's rotation with row r at position positions[r] (not r mod seqLen): x and y are
// [rows × heads·headDim]; cosSin is rotaryCosSin (cuda_layer.h) of at least the largest position.
void rotaryRows(const float *x, int rows, int heads, int headDim, const float *cosSin,
                const int *positions, Bf16 *y, Stream stream);

// keys[cacheRows[r]] = k[r] and values[cacheRows[r]] = v[r], rows of `kvWidth`.
void storeKv(const Bf16 *k, const Bf16 *v, int rows, int kvWidth, const int *cacheRows, Bf16 *keys,
             Bf16 *values, Stream stream);

// Causal attention of `rows` new query rows against a KV cache (docs/runtime.md, "Serving
// runs"): row r, at position p = positions[r], held in cache row c = cacheRows[r], sees the
// cache rows [c − p, c] (its sequence's positions 0 … p); query head h reads KV head
// h / (qHeads / kvHeads). One block of kDecodeAttentionThreads threads per (row, head): the
// scores q·k (one thread per key, fp32, over the head dimension in order) into shared memory,
// scaled; their maximum and the sum of their exponentials by a fixed tree over the threads'
// partials; out[d] = Σⱼ e_j·v_j[d] in key order, times 1/sum, rounded to bf16. Scores and
// probabilities stay fp32 (the training kernels round them to bf16). Shared memory: 4 bytes
// per position of `capacityTokens`; fails only where a device cannot give a block that much.
constexpr int kDecodeAttentionThreads = 128; // a power of two, for the tree
struct DecodeAttention
{
    int rows = 0;
    int qHeads = 0;
    int kvHeads = 0;
    int headDim = 0;
    int capacityTokens = 0; // positions per sequence: the scores' shared memory
    float scale = 0;        // 1/√headDim
};
Status decodeAttention(const DecodeAttention &shape, const Bf16 *q, const Bf16 *keys,
                       const Bf16 *values, const int *positions, const int *cacheRows, Bf16 *out,
                       Stream stream);

} // namespace hetplan::runtime::cuda::kernels
