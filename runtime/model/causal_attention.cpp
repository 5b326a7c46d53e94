#include "runtime/model/causal_attention.h"

#include "runtime/model/blas_gemm.h"
#include "runtime/model/fast_math.h"

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

// Query rows are processed in blocks so that the scores above the diagonal are never computed:
// rows [r0, r1) only see keys [0, r1), which halves the work of the causal mask.
constexpr int kRowBlock = 64;

// probs [r1−r0 × r1] (leading dimension r1) = causal softmax(q·kᵀ / √d) of query rows [r0, r1);
// entries above the diagonal are 0.
void causalProbabilities(const AttentionShape &s, const HeadView &h, int r0, int r1, float *probs)
{
    const float scale = 1.0f / std::sqrt(float(s.headDim));
    gemm(Transpose::No, Transpose::Yes, r1 - r0, r1, s.headDim, h.q + std::size_t(r0) * h.ldq,
         h.ldq, h.k, h.ldkv, 0.0f, probs, r1, scale);
    for (int i = r0; i < r1; ++i) {
        float *row = probs + std::size_t(i - r0) * r1;
        softmaxInPlace(row, std::size_t(i) + 1);
        std::fill(row + i + 1, row + r1, 0.0f);
    }
}

} // namespace

void causalAttentionForward(const AttentionShape &s, const float *q, const float *k, const float *v,
                            float *out, std::vector<float> &scratch)
{
    const int n = s.seqLen;
    scratch.resize(std::size_t(kRowBlock) * n);
    float *probs = scratch.data();
    const int ldq = s.qHeads * s.headDim;
    for (int b = 0; b < s.samples; ++b) {
        for (int head = 0; head < s.qHeads; ++head) {
            const HeadView h = headView(s, q, k, v, b, head);
            float *o = out + std::size_t(b) * n * ldq + std::size_t(head) * s.headDim;
            for (int r0 = 0; r0 < n; r0 += kRowBlock) {
                const int r1 = std::min(n, r0 + kRowBlock);
                causalProbabilities(s, h, r0, r1, probs);
                gemm(Transpose::No, Transpose::No, r1 - r0, s.headDim, r1, probs, r1, h.v, h.ldkv,
                     0.0f, o + std::size_t(r0) * ldq, ldq);
            }
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
    scratch.resize(2 * std::size_t(kRowBlock) * n);
    float *probs = scratch.data();
    float *dProbs = probs + std::size_t(kRowBlock) * n;
    const float scale = 1.0f / std::sqrt(float(s.headDim));
    for (int b = 0; b < s.samples; ++b) {
        for (int head = 0; head < s.qHeads; ++head) {
            const HeadView h = headView(s, q, k, v, b, head);
            const std::size_t qOffset = std::size_t(b) * n * ldq + std::size_t(head) * s.headDim;
            const std::size_t kvOffset = std::size_t(h.k - k);
            for (int r0 = 0; r0 < n; r0 += kRowBlock) {
                const int r1 = std::min(n, r0 + kRowBlock);
                const int rows = r1 - r0;
                const float *dO = dOut + qOffset + std::size_t(r0) * ldq;
                causalProbabilities(s, h, r0, r1, probs);
                // dV[0, r1) += Pᵀ·dO; dP = dO·V[0, r1)ᵀ.
                gemm(Transpose::Yes, Transpose::No, r1, s.headDim, rows, probs, r1, dO, ldq, 1.0f,
                     dv + kvOffset, ldkv);
                gemm(Transpose::No, Transpose::Yes, rows, r1, s.headDim, dO, ldq, h.v, ldkv, 0.0f,
                     dProbs, r1);
                // Softmax backward: dS = P ∘ (dP − rowsum(P ∘ dP)); masked entries have P = 0.
                for (int i = r0; i < r1; ++i) {
                    const float *p = probs + std::size_t(i - r0) * r1;
                    float *dp = dProbs + std::size_t(i - r0) * r1;
                    const float dot = dotProduct(p, dp, std::size_t(i) + 1);
                    for (int j = 0; j <= i; ++j)
                        dp[j] = p[j] * (dp[j] - dot);
                    std::fill(dp + i + 1, dp + r1, 0.0f);
                }
                // dQ = dS·K / √d; dK[0, r1) += dSᵀ·Q / √d.
                gemm(Transpose::No, Transpose::No, rows, s.headDim, r1, dProbs, r1, h.k, ldkv, 0.0f,
                     dq + qOffset + std::size_t(r0) * ldq, ldq, scale);
                gemm(Transpose::Yes, Transpose::No, r1, s.headDim, rows, dProbs, r1,
                     h.q + std::size_t(r0) * ldq, ldq, 1.0f, dk + kvOffset, ldkv, scale);
            }
        }
    }
}

} // namespace hetplan::runtime
