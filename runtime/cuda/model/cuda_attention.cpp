#include "runtime/cuda/model/cuda_layer.h"
#include "runtime/cuda/model/kernels.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace hetplan::runtime::cuda {

namespace {

// One strided-batched GEMM's worth of query heads of one sample: query head qHead + i·qStep reads
// KV head kvHead + i·kvStep and score matrix matrix + i·matrixStep of the chunk's scratch, for i
// in [0, count).
struct HeadBatch
{
    int qHead = 0, kvHead = 0, matrix = 0;
    int qStep = 0, kvStep = 0, matrixStep = 0;
    int count = 0;
};

// What a GEMM writes per head: one result per query head, or one per KV head summed over its
// group (dK, dV), where no two entries of a batch may share a KV head.
enum class Output { PerQueryHead, SummedPerKvHead };

// The batches covering the query heads of KV heads [firstKv, firstKv + kvCount); the chunk's score
// matrix of query head h is h − firstKv·group. By group index j: query heads firstKv·group + j +
// i·group with KV heads firstKv + i, successive j summing into the same KV heads. Per KV head:
// its group's query heads with a KV stride of 0, fewer and larger GEMMs where a chunk holds fewer
// KV heads than a group has query heads (as with 70B's 8-head groups); per query head only.
std::vector<HeadBatch> headBatches(int firstKv, int kvCount, int group, Output output)
{
    std::vector<HeadBatch> batches;
    if (output == Output::PerQueryHead && kvCount < group) {
        for (int kv = firstKv; kv < firstKv + kvCount; ++kv)
            batches.push_back({kv * group, kv, (kv - firstKv) * group, 1, 0, 1, group});
    } else {
        for (int j = 0; j < group; ++j)
            batches.push_back({firstKv * group + j, firstKv, j, group, 1, group, kvCount});
    }
    return batches;
}

// A batch's operands in the layer's buffers, for sample `sample`: q-wide ([tokens × qWidth]:
// q, attn, dAttn, qF), kv-wide (k, v, kF, vF) and the chunk's score matrices.
class BatchOperands
{
public:
    BatchOperands(const ShardDims &d, int sample, const HeadBatch &b)
        : m_d(d)
        , m_qAt(std::size_t(sample) * std::size_t(d.seqLen) * std::size_t(d.qWidth())
                + std::size_t(b.qHead) * std::size_t(d.headDim))
        , m_kvAt(std::size_t(sample) * std::size_t(d.seqLen) * std::size_t(d.kvWidth())
                 + std::size_t(b.kvHead) * std::size_t(d.headDim))
        , m_scoreAt(std::size_t(b.matrix) * squareOf(d))
        , m_qStride(static_cast<long long>(b.qStep) * d.headDim)
        , m_kvStride(static_cast<long long>(b.kvStep) * d.headDim)
        , m_scoreStride(static_cast<long long>(b.matrixStep) * static_cast<long long>(squareOf(d)))
    {}

    GemmIn q(const Bf16 *base) const { return {base + m_qAt, m_d.qWidth(), m_qStride}; }
    GemmIn kv(const Bf16 *base) const { return {base + m_kvAt, m_d.kvWidth(), m_kvStride}; }
    GemmIn scores(const Bf16 *base) const { return {base + m_scoreAt, m_d.seqLen, m_scoreStride}; }
    GemmOut qOut(Bf16 *base) const { return GemmOut::b16(base + m_qAt, m_d.qWidth(), m_qStride); }
    GemmOut qOut(float *base) const { return GemmOut::f32(base + m_qAt, m_d.qWidth(), m_qStride); }
    GemmOut kvOut(float *base) const
    {
        return GemmOut::f32(base + m_kvAt, m_d.kvWidth(), m_kvStride);
    }
    GemmOut scoresOut(Bf16 *base) const
    {
        return GemmOut::b16(base + m_scoreAt, m_d.seqLen, m_scoreStride);
    }

private:
    static std::size_t squareOf(const ShardDims &d)
    {
        return std::size_t(d.seqLen) * std::size_t(d.seqLen);
    }

    const ShardDims &m_d;
    std::size_t m_qAt, m_kvAt, m_scoreAt;
    long long m_qStride, m_kvStride, m_scoreStride;
};

// The KV heads [first, first + count) of one sample, with their query heads' score matrices in
// the scratch.
struct Chunk
{
    int sample = 0;
    int firstKv = 0;
    int kvCount = 0;

    int matrices(const ShardDims &d) const { return kvCount * d.groupSize(); }
    std::vector<HeadBatch> batches(const ShardDims &d, Output output) const
    {
        return headBatches(firstKv, kvCount, d.groupSize(), output);
    }
};

float softmaxScale(const ShardDims &d)
{
    return 1.0f / std::sqrt(float(d.headDim));
}

// Runs `step` on every chunk of every sample, in order.
template<typename Step>
Status forEachChunk(const LayerContext &c, Step step)
{
    const int perChunk = c.scratch.attentionKvHeads;
    for (int sample = 0; sample < c.samples; ++sample) {
        for (int first = 0; first < c.dims.kvHeads; first += perChunk) {
            if (Status st = step(Chunk{sample, first, std::min(perChunk, c.dims.kvHeads - first)});
                !st)
                return st;
        }
    }
    return okStatus();
}

// scratch.scores = softmax(q·kᵀ / √d) of the chunk's heads (bf16): the raw scores in bf16 from
// the GEMM, then the fused kernel. The masked half is computed and overwritten with 0: cuBLAS
// has no triangular GEMM of this shape, and it is a small share of a layer's GEMM time.
Status chunkProbabilities(const LayerContext &c, const LayerStash &s, const Chunk &chunk)
{
    const ShardDims &d = c.dims;
    for (const HeadBatch &b : chunk.batches(d, Output::PerQueryHead)) {
        const BatchOperands o(d, chunk.sample, b);
        if (Status st
            = gemm(c.blas, Transpose::No, Transpose::Yes, d.seqLen, d.seqLen, d.headDim, 1.0f,
                   o.q(s.q), o.kv(s.k), 0.0f, o.scoresOut(c.scratch.scores), b.count);
            !st)
            return st;
    }
    return kernels::scaledCausalSoftmax(c.scratch.scores, chunk.matrices(d), d.seqLen,
                                        softmaxScale(d), c.stream);
}

} // namespace

Status attentionForward(const LayerContext &c, const LayerStash &s)
{
    const ShardDims &d = c.dims;
    const Status done = forEachChunk(c, [&](const Chunk &chunk) -> Status {
        if (Status st = chunkProbabilities(c, s, chunk); !st)
            return st;
        for (const HeadBatch &b : chunk.batches(d, Output::PerQueryHead)) {
            const BatchOperands o(d, chunk.sample, b);
            // out = P · V
            if (Status st
                = gemm(c.blas, Transpose::No, Transpose::No, d.seqLen, d.headDim, d.seqLen, 1.0f,
                       o.scores(c.scratch.scores), o.kv(s.v), 0.0f, o.qOut(s.attn), b.count);
                !st)
                return st;
        }
        return okStatus();
    });
    if (!done)
        return done;
    return kernels::lastLaunchError("attention forward");
}

Status attentionBackward(const LayerContext &c, const LayerStash &s)
{
    const ShardDims &d = c.dims;
    const Scratch &x = c.scratch;
    const Status done = forEachChunk(c, [&](const Chunk &chunk) -> Status {
        if (Status st = chunkProbabilities(c, s, chunk); !st)
            return st;
        // dV = Σ over the group of Pᵀ·dO: the first query head of each KV head writes, the
        // others add, in head order.
        const std::vector<HeadBatch> summed = chunk.batches(d, Output::SummedPerKvHead);
        for (std::size_t i = 0; i < summed.size(); ++i) {
            const BatchOperands o(d, chunk.sample, summed[i]);
            if (Status st = gemm(c.blas, Transpose::Yes, Transpose::No, d.seqLen, d.headDim,
                                 d.seqLen, 1.0f, o.scores(x.scores), o.q(x.dAttn),
                                 i == 0 ? 0.0f : 1.0f, o.kvOut(x.vF), summed[i].count);
                !st)
                return st;
        }
        const std::vector<HeadBatch> perHead = chunk.batches(d, Output::PerQueryHead);
        // dP = dO·Vᵀ
        for (const HeadBatch &b : perHead) {
            const BatchOperands o(d, chunk.sample, b);
            if (Status st
                = gemm(c.blas, Transpose::No, Transpose::Yes, d.seqLen, d.seqLen, d.headDim, 1.0f,
                       o.q(x.dAttn), o.kv(s.v), 0.0f, o.scoresOut(x.dScores), b.count);
                !st)
                return st;
        }
        // dS = P ∘ (dP − rowsum(P ∘ dP)) / √d, over dP.
        if (Status st = kernels::scaledCausalSoftmaxBackward(x.scores, x.dScores, chunk.matrices(d),
                                                             d.seqLen, softmaxScale(d), c.stream);
            !st)
            return st;
        // dQ = dS·K
        for (const HeadBatch &b : perHead) {
            const BatchOperands o(d, chunk.sample, b);
            if (Status st
                = gemm(c.blas, Transpose::No, Transpose::No, d.seqLen, d.headDim, d.seqLen, 1.0f,
                       o.scores(x.dScores), o.kv(s.k), 0.0f, o.qOut(x.qF), b.count);
                !st)
                return st;
        }
        // dK = Σ over the group of dSᵀ·Q, as dV.
        for (std::size_t i = 0; i < summed.size(); ++i) {
            const BatchOperands o(d, chunk.sample, summed[i]);
            if (Status st = gemm(c.blas, Transpose::Yes, Transpose::No, d.seqLen, d.headDim,
                                 d.seqLen, 1.0f, o.scores(x.dScores), o.q(s.q),
                                 i == 0 ? 0.0f : 1.0f, o.kvOut(x.kF), summed[i].count);
                !st)
                return st;
        }
        return okStatus();
    });
    if (!done)
        return done;
    return kernels::lastLaunchError("attention backward");
}

} // namespace hetplan::runtime::cuda
