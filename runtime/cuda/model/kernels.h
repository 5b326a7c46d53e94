#pragma once

// The GPU model's own kernels (everything but the GEMMs), each the counterpart of a CPU kernel
// of runtime/model named beside it. Row-major buffers as there; `rows × width`. Every launcher
// only enqueues on `stream`: a launch failure shows in the next lastLaunchError().
// Sums over a row use fp32 tree reductions; sums over rows (gain and embedding gradients) run in
// a fixed order per column, so a gradient has the same bits on every run and TP rank.

#include "core/base/result.h"
#include "runtime/cuda/model/bf16.h"

#include <cstddef>
#include <cstdint>

struct CUstream_st;

namespace hetplan::runtime::cuda::kernels {

using Stream = CUstream_st *;

// cudaGetLastError as a Status naming `what` (the step whose launches it checks).
Status lastLaunchError(const char *what);

// y = x, converted (x.size = n).
void toBf16(const float *x, std::size_t n, Bf16 *y, Stream stream);
void toFloat(const Bf16 *x, std::size_t n, float *y, Stream stream);
// x += y.
void addInto(float *x, const float *y, std::size_t n, Stream stream);

// layer_kernels.h rmsNormForward, with the input also kept as bf16 in `xCopy` (for backward).
void rmsNormForward(const float *x, const float *gain, int rows, int width, Bf16 *normed,
                    float *invRms, Bf16 *xCopy, Stream stream);
// layer_kernels.h rmsNormBackward, except that dx is accumulated (dx += …) and dGain too.
// The gain's sum over rows runs in kGainChunks fixed row ranges, then over the ranges in order:
// parallel, yet the same bits every run. `gainPartials` is scratch of kGainChunks × width floats.
constexpr int kGainChunks = 64;
void rmsNormBackward(const float *dNormed, const Bf16 *x, const float *invRms, const float *gain,
                     int rows, int width, float *dx, float *dGain, float *gainPartials,
                     Stream stream);

// swiGluForward / geluForward: h from the pre-activations.
void swiGluForward(const Bf16 *gate, const Bf16 *up, std::size_t n, Bf16 *h, Stream stream);
void geluForward(const Bf16 *up, std::size_t n, Bf16 *h, Stream stream);
void swiGluBackward(const float *dh, const Bf16 *gate, const Bf16 *up, std::size_t n, Bf16 *dGate,
                    Bf16 *dUp, Stream stream);
void geluBackward(const float *dh, const Bf16 *up, std::size_t n, Bf16 *dUp, Stream stream);

// RotaryTable::apply from fp32 into bf16: x and y are [samples·seqLen × heads·headDim];
// cosSin is rotaryCosSin (cuda_layer.h): [seqLen × headDim], (cos, sin) of pair i at (2i, 2i+1).
void rotary(const float *x, int samples, int seqLen, int heads, int headDim, const float *cosSin,
            bool inverse, Bf16 *y, Stream stream);

// Megatron-LM's scaled masked softmax, causal (docs/gpu-model.md#kernels): `matrices` square
// [seqLen × seqLen] bf16 score matrices q·kᵀ, unscaled, in place. Row r (query position
// r mod seqLen) becomes softmax(scale · its scores [0, position]), fp32 inside, and exactly 0
// beyond. One block per row; the row's visible part is read once, cached in shared memory
// (4 · seqLen bytes), and the whole row written once. Fails only where a device cannot give a
// block that much shared memory (rows of more than about 25 000 columns on sm_86/89, about
// 58 000 on sm_90).
Status scaledCausalSoftmax(Bf16 *scores, int matrices, int seqLen, float scale, Stream stream);
// Its backward, in place of dProbs: dS = scale · P ∘ (dP − rowsum(P ∘ dP)) up to the diagonal,
// exactly 0 beyond; P as the forward wrote it.
Status scaledCausalSoftmaxBackward(const Bf16 *probs, Bf16 *dProbs, int matrices, int seqLen,
                                   float scale, Stream stream);

// The synthetic tokens of model_init.h for samples [firstSample, firstSample + samples).
struct TokenSource
{
    std::uint64_t seed = 0;
    int firstSample = 0;
    int samples = 0;
    int seqLen = 0;
    int vocab = 0;
};

// x[t] = table[input token t] (fp32 rows of `width`).
void embeddingGather(const float *table, const TokenSource &tokens, int width, float *x,
                     Stream stream);
// grad[input token t] += dx[t], parallel over tokens and columns without atomics: the rows are
// grouped by token (a counting sort, each group in row order), then one block per token adds its
// rows in row order, as the CPU model does, so the sums are the CPU's bits on every run and TP
// rank. `index` is device scratch of embeddingIndexInts(rows, vocab) ints.
constexpr std::size_t embeddingIndexInts(std::size_t rows, int vocab)
{
    // per row: its token, its place unordered and sorted; per token: count, start, fill
    return 3 * rows + 3 * std::size_t(vocab);
}
void embeddingScatterAdd(const float *dx, const TokenSource &tokens, int width, float *grad,
                         int *index, Stream stream);
// softmaxCrossEntropy against the target tokens (positions 1 … seqLen): dLogits = the loss
// gradient · lossScale; rowLoss[t] = −log softmax(logits[t])[target].
void crossEntropy(const float *logits, const TokenSource &tokens, float lossScale, Bf16 *dLogits,
                  float *rowLoss, Stream stream);

// One Adam step (adam.cpp's arithmetic, correctly rounded, no contraction), then grad = 0 and
// valueBf16 = the new value.
struct AdamStep
{
    float beta1 = 0;
    float beta2 = 0;
    float epsilon = 0;
    float stepSize = 0;           // lr / (1 − β1^t)
    float invSqrtCorrection2 = 0; // 1 / √(1 − β2^t)
};
void adamStep(float *value, float *grad, float *m, float *v, std::size_t n, const AdamStep &step,
              Bf16 *valueBf16, Stream stream);
// value −= lr · grad, then grad = 0 and valueBf16 = the new value.
void sgdStep(float *value, float *grad, std::size_t n, float learningRate, Bf16 *valueBf16,
             Stream stream);

} // namespace hetplan::runtime::cuda::kernels
