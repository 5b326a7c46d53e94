#include "runtime/model/causal_attention.h"

#include "runtime/model/blas_gemm.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace hetplan::runtime {

namespace {

struct HeadView
{
    const float *q;
    const float *k;
    const float *v;
    int ldq; // row strides of the [tokens × features] buffers
    int ldkv;
};

HeadView headView(const AttentionShape &s, const float *q, const float *k, const float *v,
                  int sample, int head)
{
    const int ldq = s.qHeads * s.headDim;
    const int ldkv = s.kvHeads * s.headDim;
    const int kvHead = head / (s.qHeads / s.kvHeads);
    const std::size_t row = std::size_t(sample) * s.seqLen;
    return {q + row * ldq + std::size_t(head) * s.headDim,
            k + row * ldkv + std::size_t(kvHead) * s.headDim,
            v + row * ldkv + std::size_t(kvHead) * s.headDim, ldq, ldkv};
}

// probs [seqLen × seqLen] = causal softmax(q·kᵀ / √d); entries above the diagonal are 0.
void causalProbabilities(const AttentionShape &s, const HeadView &h, float *probs)
{
    const int n = s.seqLen;
    const float scale = 1.0f / std::sqrt(float(s.headDim));
    gemm(Transpose::No, Transpose::Yes, n, n, s.headDim, h.q, h.ldq, h.k, h.ldkv, 0.0f, probs, n,
         scale);
    for (int i = 0; i < n; ++i) {
        float *row = probs + std::size_t(i) * n;
        const float maxScore = *std::max_element(row, row + i + 1);
        float sum = 0;
        for (int j = 0; j <= i; ++j) {
            row[j] = std::exp(row[j] - maxScore);
            sum += row[j];
        }
        const float inv = 1.0f / sum;
        for (int j = 0; j <= i; ++j)
            row[j] *= inv;
        std::fill(row + i + 1, row + n, 0.0f);
    }
}

} // namespace

void causalAttentionForward(const AttentionShape &s, const float *q, const float *k, const float *v,
                            float *out, std::vector<float> &scratch)
{
    const int n = s.seqLen;
    scratch.resize(std::size_t(n) * n);
    float *probs = scratch.data();
    const int ldq = s.qHeads * s.headDim;
    for (int b = 0; b < s.samples; ++b) {
        for (int head = 0; head < s.qHeads; ++head) {
            const HeadView h = headView(s, q, k, v, b, head);
            causalProbabilities(s, h, probs);
            float *o = out + std::size_t(b) * n * ldq + std::size_t(head) * s.headDim;
            gemm(Transpose::No, Transpose::No, n, s.headDim, n, probs, n, h.v, h.ldkv, 0.0f, o,
                 ldq);
        }
    }
}

void causalAttentionBackward(const AttentionShape &s, const float *q, const float *k,
                             const float *v, const float *dOut, float *dq, float *dk, float *dv,
                             std::vector<float> &scratch)
{
    const int n = s.seqLen;
    const std::size_t tokens = std::size_t(s.samples) * n;
    const int ldq = s.qHeads * s.headDim;
    const int ldkv = s.kvHeads * s.headDim;
    std::fill(dk, dk + tokens * ldkv, 0.0f);
    std::fill(dv, dv + tokens * ldkv, 0.0f);
    scratch.resize(2 * std::size_t(n) * n);
    float *probs = scratch.data();
    float *dProbs = probs + std::size_t(n) * n;
    const float scale = 1.0f / std::sqrt(float(s.headDim));
    for (int b = 0; b < s.samples; ++b) {
        for (int head = 0; head < s.qHeads; ++head) {
            const HeadView h = headView(s, q, k, v, b, head);
            const std::size_t qOffset = std::size_t(b) * n * ldq + std::size_t(head) * s.headDim;
            const std::size_t kvOffset = std::size_t(h.k - k);
            const float *dO = dOut + qOffset;
            causalProbabilities(s, h, probs);
            // dV += Pᵀ·dO; dP = dO·Vᵀ.
            gemm(Transpose::Yes, Transpose::No, n, s.headDim, n, probs, n, dO, ldq, 1.0f,
                 dv + kvOffset, ldkv);
            gemm(Transpose::No, Transpose::Yes, n, n, s.headDim, dO, ldq, h.v, ldkv, 0.0f, dProbs,
                 n);
            // Softmax backward: dS = P ∘ (dP − rowsum(P ∘ dP)); masked entries have P = 0.
            for (int i = 0; i < n; ++i) {
                const float *p = probs + std::size_t(i) * n;
                float *dp = dProbs + std::size_t(i) * n;
                float dot = 0;
                for (int j = 0; j <= i; ++j)
                    dot += p[j] * dp[j];
                for (int j = 0; j <= i; ++j)
                    dp[j] = p[j] * (dp[j] - dot);
                std::fill(dp + i + 1, dp + n, 0.0f);
            }
            // dQ = dS·K / √d; dK += dSᵀ·Q / √d.
            gemm(Transpose::No, Transpose::No, n, s.headDim, n, dProbs, n, h.k, ldkv, 0.0f,
                 dq + qOffset, ldq, scale);
            gemm(Transpose::Yes, Transpose::No, n, s.headDim, n, dProbs, n, h.q, ldq, 1.0f,
                 dk + kvOffset, ldkv, scale);
        }
    }
}

} // namespace hetplan::runtime
