#pragma once

// Where a GPU shard keeps what: the sizes of one layer on one TP shard, and how each device
// allocation (a micro-batch's stash, the scratch of a call) is carved into aligned pieces.
// Plain host arithmetic, so it is tested where no GPU is.

#include "runtime/model/model_config.h"

#include <cstddef>
#include <cstdint>

namespace hetplan::runtime::cuda {

// The sizes of one shard's layers and head (TP index-independent: every TP rank has the same).
struct ShardDims
{
    int hidden = 0;
    int qHeads = 0;  // this shard's query heads
    int kvHeads = 0; // this shard's KV heads
    int headDim = 0;
    int ffnWidth = 0; // this shard's FFN columns
    int seqLen = 0;
    int vocab = 0;
    MlpKind mlp = MlpKind::SwiGlu;

    static ShardDims of(const ModelConfig &config, int tpDegree);
    int qWidth() const { return qHeads * headDim; }
    int groupSize() const { return qHeads / kvHeads; } // query heads per KV head
    int kvWidth() const { return kvHeads * headDim; }
    std::size_t tokens(int samples) const { return std::size_t(samples) * std::size_t(seqLen); }
};

// Pieces of one allocation, each starting on a 256-byte boundary (what cuBLAS and vectorised
// loads like best; cudaMalloc's own alignment).
class BufferPlan
{
public:
    static constexpr std::size_t kAlignment = 256;
    static constexpr std::size_t kNone = ~std::size_t(0); // a piece this shape does not have

    // Reserves `elements` of `elementBytes` each; returns the piece's byte offset.
    std::size_t add(std::size_t elements, std::size_t elementBytes);
    std::size_t bytes() const { return m_bytes; }

private:
    std::size_t m_bytes = 0;
};

// Byte offsets, inside one micro-batch's stash, of what a layer's backward needs from its
// forward (as runtime/model's LayerStash): bf16 but for the fp32 1/rms of each row.
struct LayerStashLayout
{
    std::size_t x = 0, invRms1 = 0, normed1 = 0;
    std::size_t q = 0, k = 0, v = 0, attn = 0;
    std::size_t x1 = 0, invRms2 = 0, normed2 = 0;
    std::size_t gate = BufferPlan::kNone, up = 0;
};

// The head's stash: the final norm's input, 1/rms and output, and the loss gradient.
struct HeadStashLayout
{
    std::size_t x = BufferPlan::kNone, invRms = 0, normed = 0, dLogits = 0;
};

// One micro-batch's stash: `layers` layer stashes, the head's (if the shard holds it) and the
// activations sent to the next stage (if it does not).
struct MicroBatchLayout
{
    std::size_t layerBytes = 0; // layer l starts at l · layerBytes
    LayerStashLayout layer;     // offsets inside one layer's piece
    HeadStashLayout head;       // offsets from the start of the allocation
    std::size_t output = BufferPlan::kNone;
    std::size_t bytes = 0;

    static MicroBatchLayout of(const ShardDims &dims, int samples, int layers, bool hasHead);
};

// The attention's bound on its score scratch (docs/gpu-model.md#kernels): the bf16 score
// matrices of a chunk of heads and their gradients, seqLen² · 2 · 2 bytes per query head, stay
// within this, except that a chunk holds at least one KV head's group of query heads.
// Default: 1 GiB, 16 query heads of seq 4096 (half of Llama-2 7B's, in two chunks).
constexpr std::size_t kAttentionScratchBytes = std::size_t(1) << 30;

// The KV heads of one attention chunk (each with its groupSize() query heads): as many as fit
// `scratchBytes` (at least one, at most all of the shard's).
int attentionChunkKvHeads(const ShardDims &dims, std::size_t scratchBytes);

// The scratch one forward or backward call uses, for `samples` samples: fp32 residual stream
// and partial sums, bf16 GEMM operands, the attention's score matrices and their gradients of
// one chunk of heads (one sample at a time), the head's logits, the input gradient handed to
// the previous stage, and the norms' per-chunk gain sums.
struct ScratchLayout
{
    std::size_t residual = 0, partial = 0, residualBf16 = 0;
    std::size_t ffn = 0, ffnBf16 = 0, ffnBf16b = 0;
    std::size_t qF = 0, kF = 0, vF = 0, qBf16 = 0, kBf16 = 0, vBf16 = 0, dAttn = 0;
    std::size_t scores = 0, dScores = 0; // bf16, attentionKvHeads · groupSize() matrices each
    std::size_t logits = BufferPlan::kNone, rowLoss = BufferPlan::kNone;
    std::size_t inputGrad = 0;
    std::size_t gainPartials = 0;   // kernels::rmsNormBackward's, its kGainChunks × hidden
    std::size_t embeddingIndex = 0; // kernels::embeddingScatterAdd's, embeddingIndexInts ints
    std::size_t bytes = 0;
    int attentionKvHeads = 0; // attentionChunkKvHeads for the scratch bound given to of()

    static ScratchLayout of(const ShardDims &dims, int samples, bool hasHead,
                            std::size_t attentionScratchBytes = kAttentionScratchBytes);
};

} // namespace hetplan::runtime::cuda
