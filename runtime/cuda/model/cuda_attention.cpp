#include "runtime/cuda/device_buffer.h"
#include "runtime/cuda/model/cuda_layer.h"
#include "runtime/cuda/model/kernels.h"

#include <cmath>

namespace hetplan::runtime::cuda {

namespace {

// One query head's operands for every sample: row r of sample b is at b·seqLen + r, so a sample's
// matrix starts seqLen rows (seqLen·ld elements) after the previous one's.
struct HeadOperands
{
    std::size_t qColumn = 0;  // the head's first feature in q / attn
    std::size_t kvColumn = 0; // its KV head's first feature in k / v
    long long qStride = 0;
    long long kvStride = 0;
    long long scoreStride = 0;
};

HeadOperands headOperands(const ShardDims &d, int head)
{
    const int kvHead = head / (d.qHeads / d.kvHeads);
    HeadOperands h;
    h.qColumn = std::size_t(head) * std::size_t(d.headDim);
    h.kvColumn = std::size_t(kvHead) * std::size_t(d.headDim);
    h.qStride = static_cast<long long>(d.seqLen) * d.qWidth();
    h.kvStride = static_cast<long long>(d.seqLen) * d.kvWidth();
    h.scoreStride = static_cast<long long>(d.seqLen) * d.seqLen;
    return h;
}

// scores = softmax(q·kᵀ / √d) for one head and every sample (fp32 in scratch.scores, bf16 in
// scratch.probsBf16). The masked half is computed and then discarded: a triangular GEMM is not
// what cuBLAS offers, and the scores are a small share of a layer's GEMM time.
Status headProbabilities(const LayerContext &c, const LayerStash &s, const HeadOperands &h)
{
    const ShardDims &d = c.dims;
    const float scale = 1.0f / std::sqrt(float(d.headDim));
    if (Status st = gemm(c.blas, Transpose::No, Transpose::Yes, d.seqLen, d.seqLen, d.headDim,
                         scale, {s.q + h.qColumn, d.qWidth(), h.qStride},
                         {s.k + h.kvColumn, d.kvWidth(), h.kvStride}, 0.0f,
                         GemmOut::f32(c.scratch.scores, d.seqLen, h.scoreStride), c.samples);
        !st)
        return st;
    kernels::causalSoftmax(c.scratch.scores, c.samples, d.seqLen, c.scratch.probsBf16, c.stream);
    return okStatus();
}

} // namespace

Status attentionForward(const LayerContext &c, const LayerStash &s)
{
    const ShardDims &d = c.dims;
    for (int head = 0; head < d.qHeads; ++head) {
        const HeadOperands h = headOperands(d, head);
        if (Status st = headProbabilities(c, s, h); !st)
            return st;
        // out = P · V
        if (Status st = gemm(c.blas, Transpose::No, Transpose::No, d.seqLen, d.headDim, d.seqLen,
                             1.0f, {c.scratch.probsBf16, d.seqLen, h.scoreStride},
                             {s.v + h.kvColumn, d.kvWidth(), h.kvStride}, 0.0f,
                             GemmOut::b16(s.attn + h.qColumn, d.qWidth(), h.qStride), c.samples);
            !st)
            return st;
    }
    return kernels::lastLaunchError("attention forward");
}

Status attentionBackward(const LayerContext &c, const LayerStash &s)
{
    const ShardDims &d = c.dims;
    const Scratch &x = c.scratch;
    const std::size_t kvCount = std::size_t(c.tokens()) * std::size_t(d.kvWidth());
    // dK and dV sum over the query heads of a group.
    if (Status st = zeroDevice(x.kF, kvCount * sizeof(float), c.stream); !st)
        return st;
    if (Status st = zeroDevice(x.vF, kvCount * sizeof(float), c.stream); !st)
        return st;
    const float scale = 1.0f / std::sqrt(float(d.headDim));
    for (int head = 0; head < d.qHeads; ++head) {
        const HeadOperands h = headOperands(d, head);
        const GemmIn dOut{x.dAttn + h.qColumn, d.qWidth(), h.qStride};
        if (Status st = headProbabilities(c, s, h); !st)
            return st;
        // dV += Pᵀ·dO
        if (Status st = gemm(c.blas, Transpose::Yes, Transpose::No, d.seqLen, d.headDim, d.seqLen,
                             1.0f, {x.probsBf16, d.seqLen, h.scoreStride}, dOut, 1.0f,
                             GemmOut::f32(x.vF + h.kvColumn, d.kvWidth(), h.kvStride), c.samples);
            !st)
            return st;
        // dP = dO·Vᵀ
        if (Status st = gemm(c.blas, Transpose::No, Transpose::Yes, d.seqLen, d.seqLen, d.headDim,
                             1.0f, dOut, {s.v + h.kvColumn, d.kvWidth(), h.kvStride}, 0.0f,
                             GemmOut::f32(x.dScores, d.seqLen, h.scoreStride), c.samples);
            !st)
            return st;
        // dS = P ∘ (dP − rowsum(P ∘ dP)), into the bf16 probabilities (no longer needed).
        kernels::causalSoftmaxBackward(x.scores, x.dScores, c.samples, d.seqLen, x.probsBf16,
                                       c.stream);
        const GemmIn dScores{x.probsBf16, d.seqLen, h.scoreStride};
        // dQ = dS·K / √d
        if (Status st = gemm(c.blas, Transpose::No, Transpose::No, d.seqLen, d.headDim, d.seqLen,
                             scale, dScores, {s.k + h.kvColumn, d.kvWidth(), h.kvStride}, 0.0f,
                             GemmOut::f32(x.qF + h.qColumn, d.qWidth(), h.qStride), c.samples);
            !st)
            return st;
        // dK += dSᵀ·Q / √d
        if (Status st = gemm(c.blas, Transpose::Yes, Transpose::No, d.seqLen, d.headDim, d.seqLen,
                             scale, dScores, {s.q + h.qColumn, d.qWidth(), h.qStride}, 1.0f,
                             GemmOut::f32(x.kF + h.kvColumn, d.kvWidth(), h.kvStride), c.samples);
            !st)
            return st;
    }
    return kernels::lastLaunchError("attention backward");
}

} // namespace hetplan::runtime::cuda
