#include "runtime/cuda/device_buffer.h"
#include "runtime/cuda/model/cuda_layer.h"
#include "runtime/cuda/model/kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
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

// A batch's operands in the layer's buffers, for sample `sample`, from token row `row` of the
// sample (and, in a score matrix, column `column`): q-wide ([tokens × qWidth]: q, attn, dAttn,
// qF), kv-wide (k, v, kF, vF) and the chunk's score matrices.
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

    GemmIn q(const Bf16 *base, int row) const { return {base + qAt(row), m_d.qWidth(), m_qStride}; }
    GemmIn kv(const Bf16 *base, int row) const
    {
        return {base + kvAt(row), m_d.kvWidth(), m_kvStride};
    }
    GemmIn scores(const Bf16 *base, int row, int column) const
    {
        return {base + scoreAt(row, column), m_d.seqLen, m_scoreStride};
    }
    template<typename Element>
    GemmOut qOut(Element *base, int row) const
    {
        return out(base + qAt(row), m_d.qWidth(), m_qStride);
    }
    GemmOut kvOut(float *base, int row) const
    {
        return GemmOut::f32(base + kvAt(row), m_d.kvWidth(), m_kvStride);
    }
    GemmOut scoresOut(Bf16 *base, int row) const
    {
        return GemmOut::b16(base + scoreAt(row, 0), m_d.seqLen, m_scoreStride);
    }

private:
    static std::size_t squareOf(const ShardDims &d)
    {
        return std::size_t(d.seqLen) * std::size_t(d.seqLen);
    }
    static GemmOut out(Bf16 *c, int ld, long long stride) { return GemmOut::b16(c, ld, stride); }
    static GemmOut out(float *c, int ld, long long stride) { return GemmOut::f32(c, ld, stride); }

    std::size_t qAt(int row) const { return m_qAt + std::size_t(row) * std::size_t(m_d.qWidth()); }
    std::size_t kvAt(int row) const
    {
        return m_kvAt + std::size_t(row) * std::size_t(m_d.kvWidth());
    }
    std::size_t scoreAt(int row, int column) const
    {
        return m_scoreAt + std::size_t(row) * std::size_t(m_d.seqLen) + std::size_t(column);
    }

    const ShardDims &m_d;
    std::size_t m_qAt, m_kvAt, m_scoreAt;
    long long m_qStride, m_kvStride, m_scoreStride;
};

// The causal mask by blocks: query rows in kCausalBlocks blocks, block i seeing the keys up to its
// end, so that the products skip the score blocks above the diagonal ((n − 1) / 2n of each
// product's work and memory traffic; 3/8 with 4 blocks). Those blocks are never computed; the
// softmax writes their zeros, and no product reads them.
constexpr int kCausalBlocks = 4;

struct RowBlock
{
    int begin = 0;
    int end = 0;
};

RowBlock causalBlock(int seqLen, int i)
{
    return {int(std::int64_t(seqLen) * i / kCausalBlocks),
            int(std::int64_t(seqLen) * (i + 1) / kCausalBlocks)};
}

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
    if (perChunk < 1) // a Scratch not made by Scratch::at
        return Error{ErrorKind::Internal, "attention: the scratch has no attention chunk size"};
    for (int sample = 0; sample < c.samples; ++sample) {
        for (int first = 0; first < c.dims.kvHeads; first += perChunk) {
            if (Status st = step(Chunk{sample, first, std::min(perChunk, c.dims.kvHeads - first)});
                !st)
                return st;
        }
    }
    return okStatus();
}

// Runs `blockGemm(operands, batch size, first batch?, block)` for each of the chunk's batches
// (for `output`) and each causal block, in order, up to the first failure.
template<typename BlockGemm>
Status forEachBatchAndBlock(const LayerContext &c, const Chunk &chunk, Output output,
                            BlockGemm blockGemm)
{
    const std::vector<HeadBatch> batches = chunk.batches(c.dims, output);
    for (std::size_t i = 0; i < batches.size(); ++i) {
        const BatchOperands o(c.dims, chunk.sample, batches[i]);
        for (int j = 0; j < kCausalBlocks; ++j) {
            const RowBlock block = causalBlock(c.dims.seqLen, j);
            if (block.end == block.begin)
                continue;
            if (Status st = blockGemm(o, batches[i].count, i == 0, block); !st)
                return st;
        }
    }
    return okStatus();
}

// The chunk's three kinds of product. Scores: matrices = rows·kvᵀ per query head (q·kᵀ,
// dO·Vᵀ), rows q-wide; a block's rows against the keys before its end.
Status scoresProduct(const LayerContext &c, const Chunk &chunk, const Bf16 *rows, const Bf16 *kv,
                     Bf16 *matrices)
{
    const ShardDims &d = c.dims;
    return forEachBatchAndBlock(c, chunk, Output::PerQueryHead,
                                [&](const BatchOperands &o, int count, bool, const RowBlock &r) {
                                    return gemm(c.blas, Transpose::No, Transpose::Yes,
                                                r.end - r.begin, r.end, d.headDim, 1.0f,
                                                o.q(rows, r.begin), o.kv(kv, 0), 0.0f,
                                                o.scoresOut(matrices, r.begin), count);
                                });
}

// out = matrices·kv per query head (P·V, dS·K), out q-wide, bf16 or fp32; a block's rows from
// the keys before its end.
template<typename Element>
Status valueProduct(const LayerContext &c, const Chunk &chunk, const Bf16 *matrices, const Bf16 *kv,
                    Element *out)
{
    const ShardDims &d = c.dims;
    return forEachBatchAndBlock(c, chunk, Output::PerQueryHead,
                                [&](const BatchOperands &o, int count, bool, const RowBlock &r) {
                                    return gemm(c.blas, Transpose::No, Transpose::No,
                                                r.end - r.begin, d.headDim, r.end, 1.0f,
                                                o.scores(matrices, r.begin, 0), o.kv(kv, 0), 0.0f,
                                                o.qOut(out, r.begin), count);
                                });
}

// out = Σ over each KV head's group of matricesᵀ·rows (Pᵀ·dO, dSᵀ·q), out kv-wide fp32: the
// group's first query head writes, the others add, in head order. A block of keys takes the
// rows from its beginning on (earlier rows do not see it).
Status groupSumProduct(const LayerContext &c, const Chunk &chunk, const Bf16 *matrices,
                       const Bf16 *rows, float *out)
{
    const ShardDims &d = c.dims;
    return forEachBatchAndBlock(
        c, chunk, Output::SummedPerKvHead,
        [&](const BatchOperands &o, int count, bool first, const RowBlock &keys) {
            return gemm(c.blas, Transpose::Yes, Transpose::No, keys.end - keys.begin, d.headDim,
                        d.seqLen - keys.begin, 1.0f, o.scores(matrices, keys.begin, keys.begin),
                        o.q(rows, keys.begin), first ? 0.0f : 1.0f, o.kvOut(out, keys.begin),
                        count);
        });
}

// scratch.scores = softmax(q·kᵀ / √d) of the chunk's heads (bf16): the raw scores in bf16 from
// the GEMM, then the fused kernel. Of the masked half, the blocks on the diagonal are computed
// and overwritten with 0 (cuBLAS has no triangular batched GEMM), the others only written 0.
Status chunkProbabilities(const LayerContext &c, const LayerStash &s, const Chunk &chunk)
{
    if (Status st = scoresProduct(c, chunk, s.q, s.k, c.scratch.scores); !st)
        return st;
    return kernels::scaledCausalSoftmax(c.scratch.scores, chunk.matrices(c.dims), c.dims.seqLen,
                                        softmaxScale(c.dims), c.stream);
}

} // namespace

Status attentionForward(const LayerContext &c, const LayerStash &s)
{
    Status done = forEachChunk(c, [&](const Chunk &chunk) -> Status {
        if (Status st = chunkProbabilities(c, s, chunk); !st)
            return st;
        return valueProduct(c, chunk, c.scratch.scores, s.v, s.attn); // out = P·V
    });
    if (!done)
        return done;
    return kernels::lastLaunchError("attention forward");
}

Status attentionBackward(const LayerContext &c, const LayerStash &s)
{
    const Scratch &x = c.scratch;
    Status done = forEachChunk(c, [&](const Chunk &chunk) -> Status {
        if (Status st = chunkProbabilities(c, s, chunk); !st)
            return st;
        if (Status st = groupSumProduct(c, chunk, x.scores, x.dAttn, x.vF); !st) // dV = Σ Pᵀ·dO
            return st;
        if (Status st = scoresProduct(c, chunk, x.dAttn, s.v, x.dScores); !st) // dP = dO·Vᵀ
            return st;
        // dS = P ∘ (dP − rowsum(P ∘ dP)) / √d, over dP.
        if (Status st
            = kernels::scaledCausalSoftmaxBackward(x.scores, x.dScores, chunk.matrices(c.dims),
                                                   c.dims.seqLen, softmaxScale(c.dims), c.stream);
            !st)
            return st;
        if (Status st = valueProduct(c, chunk, x.dScores, s.k, x.qF); !st) // dQ = dS·K
            return st;
        return groupSumProduct(c, chunk, x.dScores, s.q, x.kF); // dK = Σ dSᵀ·q
    });
    if (!done)
        return done;
    return kernels::lastLaunchError("attention backward");
}

} // namespace hetplan::runtime::cuda
