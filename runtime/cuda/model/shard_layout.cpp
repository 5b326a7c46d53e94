#include "runtime/cuda/model/shard_layout.h"

#include "runtime/cuda/model/kernels.h"

#include <algorithm>

namespace hetplan::runtime::cuda {

namespace {

constexpr std::size_t kFloatBytes = 4;
constexpr std::size_t kHalfBytes = 2; // bf16

} // namespace

ShardDims ShardDims::of(const ModelConfig &config, int tpDegree)
{
    ShardDims d;
    d.hidden = config.hidden;
    d.qHeads = config.heads / tpDegree;
    d.kvHeads = config.kvHeads / tpDegree;
    d.headDim = config.headDim();
    d.ffnWidth = config.ffnHidden / tpDegree;
    d.seqLen = config.seqLen;
    d.vocab = config.vocab;
    d.mlp = config.mlp;
    return d;
}

std::size_t BufferPlan::add(std::size_t elements, std::size_t elementBytes)
{
    const std::size_t offset = m_bytes;
    const std::size_t size = elements * elementBytes;
    m_bytes += (size + kAlignment - 1) / kAlignment * kAlignment;
    return offset;
}

MicroBatchLayout MicroBatchLayout::of(const ShardDims &d, int samples, int layers, bool hasHead)
{
    const std::size_t n = d.tokens(samples);
    const auto h = std::size_t(d.hidden);
    const auto ffn = std::size_t(d.ffnWidth);
    MicroBatchLayout result;
    BufferPlan layer;
    LayerStashLayout &l = result.layer;
    l.x = layer.add(n * h, kHalfBytes);
    l.invRms1 = layer.add(n, kFloatBytes);
    l.normed1 = layer.add(n * h, kHalfBytes);
    l.q = layer.add(n * std::size_t(d.qWidth()), kHalfBytes);
    l.k = layer.add(n * std::size_t(d.kvWidth()), kHalfBytes);
    l.v = layer.add(n * std::size_t(d.kvWidth()), kHalfBytes);
    l.attn = layer.add(n * std::size_t(d.qWidth()), kHalfBytes);
    l.x1 = layer.add(n * h, kHalfBytes);
    l.invRms2 = layer.add(n, kFloatBytes);
    l.normed2 = layer.add(n * h, kHalfBytes);
    if (d.mlp == MlpKind::SwiGlu)
        l.gate = layer.add(n * ffn, kHalfBytes);
    l.up = layer.add(n * ffn, kHalfBytes);
    result.layerBytes = layer.bytes();

    BufferPlan whole;
    whole.add(std::size_t(layers) * result.layerBytes, 1);
    if (hasHead) {
        result.head.x = whole.add(n * h, kHalfBytes);
        result.head.invRms = whole.add(n, kFloatBytes);
        result.head.normed = whole.add(n * h, kHalfBytes);
        result.head.dLogits = whole.add(n * std::size_t(d.vocab), kHalfBytes);
    } else {
        result.output = whole.add(n * h, kHalfBytes);
    }
    result.bytes = whole.bytes();
    return result;
}

int attentionChunkKvHeads(const ShardDims &d, std::size_t scratchBytes)
{
    const std::size_t square = std::size_t(d.seqLen) * std::size_t(d.seqLen);
    const std::size_t groupBytes = std::size_t(d.groupSize()) * square * 2 * kHalfBytes;
    const std::size_t fit = scratchBytes / groupBytes;
    return int(std::clamp<std::size_t>(fit, 1, std::size_t(d.kvHeads)));
}

ScratchLayout ScratchLayout::of(const ShardDims &d, int samples, bool hasHead,
                                std::size_t attentionScratchBytes)
{
    const std::size_t n = d.tokens(samples);
    const auto h = std::size_t(d.hidden);
    const auto ffn = std::size_t(d.ffnWidth);
    const auto qw = std::size_t(d.qWidth());
    const auto kvw = std::size_t(d.kvWidth());
    ScratchLayout s;
    s.attentionKvHeads = attentionChunkKvHeads(d, attentionScratchBytes);
    const std::size_t scoreCount = std::size_t(s.attentionKvHeads) * std::size_t(d.groupSize())
                                   * std::size_t(d.seqLen) * std::size_t(d.seqLen);
    BufferPlan plan;
    s.residual = plan.add(n * h, kFloatBytes);
    s.partial = plan.add(n * h, kFloatBytes);
    s.residualBf16 = plan.add(n * h, kHalfBytes);
    s.ffn = plan.add(n * ffn, kFloatBytes);
    s.ffnBf16 = plan.add(n * ffn, kHalfBytes);
    s.ffnBf16b = plan.add(n * ffn, kHalfBytes);
    s.qF = plan.add(n * qw, kFloatBytes);
    s.kF = plan.add(n * kvw, kFloatBytes);
    s.vF = plan.add(n * kvw, kFloatBytes);
    s.qBf16 = plan.add(n * qw, kHalfBytes);
    s.kBf16 = plan.add(n * kvw, kHalfBytes);
    s.vBf16 = plan.add(n * kvw, kHalfBytes);
    s.dAttn = plan.add(n * qw, kHalfBytes);
    s.scores = plan.add(scoreCount, kHalfBytes);
    s.dScores = plan.add(scoreCount, kHalfBytes);
    if (hasHead) {
        s.logits = plan.add(n * std::size_t(d.vocab), kFloatBytes);
        s.rowLoss = plan.add(n, kFloatBytes);
    }
    s.inputGrad = plan.add(n * h, kHalfBytes);
    s.gainPartials = plan.add(std::size_t(kernels::kGainChunks) * h, kFloatBytes);
    s.embeddingIndex = plan.add(kernels::embeddingIndexInts(n, d.vocab), sizeof(int));
    s.bytes = plan.bytes();
    return s;
}

} // namespace hetplan::runtime::cuda
