#pragma once

// Element-wise and row-wise pieces of the transformer (no GEMMs), forward and backward.
// Row-major [rows × width] buffers; "accumulate" means the result is added into the output.

#include <cstddef>

namespace hetplan::runtime {

// RMSNorm (Zhang & Sennrich 2019), ε = 1e-5 as in Llama: y = x / √(mean(x²) + ε) · gain.
// Keeps 1/rms per row for the backward.
void rmsNormForward(const float *x, const float *gain, std::size_t rows, std::size_t width,
                    float *y, float *invRms);
// dx = dy's gradient through the norm (written, not accumulated); dGain accumulated.
void rmsNormBackward(const float *dy, const float *x, const float *invRms, const float *gain,
                     std::size_t rows, std::size_t width, float *dx, float *dGain);

// SwiGLU (Shazeer 2020): h = silu(g) · u.
void swiGluForward(const float *g, const float *u, std::size_t count, float *h);
void swiGluBackward(const float *dh, const float *g, const float *u, std::size_t count, float *dg,
                    float *du);
// GELU, tanh form (as GPT-2/3 use): h = gelu(u).
void geluForward(const float *u, std::size_t count, float *h);
void geluBackward(const float *dh, const float *u, std::size_t count, float *du);

// Row-wise cross-entropy over `width` logits; the logits are replaced by the gradient of
// (Σ losses) · lossScale. Returns Σ over rows of −log softmax(logits)[target].
double softmaxCrossEntropy(float *logits, const int *targets, std::size_t rows, std::size_t width,
                           float lossScale);

} // namespace hetplan::runtime
