#pragma once

// One transformer block on one TP shard of one GPU, forward and backward: runtime/model's
// transformer_layer.h step for step (Megatron-LM's split, the same four all-reduces), on device
// buffers. The residual stream (forward) and its gradient (backward) are the fp32 `residual`
// of the scratch, updated in place.

#include "core/base/result.h"
#include "runtime/cuda/model/cublas_gemm.h"
#include "runtime/cuda/model/cuda_shard.h"
#include "runtime/cuda/model/shard_layout.h"

#include <cstddef>
#include <span>
#include <vector>

namespace hetplan::runtime::cuda {

// This shard's parameters of one layer (not owned). gate is null for GELU.
struct LayerWeights
{
    const DeviceParameter *attnNorm = nullptr;
    const DeviceParameter *q = nullptr;
    const DeviceParameter *k = nullptr;
    const DeviceParameter *v = nullptr;
    const DeviceParameter *o = nullptr;
    const DeviceParameter *mlpNorm = nullptr;
    const DeviceParameter *gate = nullptr;
    const DeviceParameter *up = nullptr;
    const DeviceParameter *down = nullptr;
};

// Where each of a shard's parameters serves: `layers` (layer l at l − layerBegin, resized to
// the shard's layers), the embedding, final norm and head (null where the shard has none).
struct ShardWeights
{
    std::vector<LayerWeights> layers;
    const DeviceParameter *embedding = nullptr;
    const DeviceParameter *finalNorm = nullptr;
    const DeviceParameter *head = nullptr;
};
ShardWeights shardWeights(std::span<const DeviceParameter> params, int layerBegin);

// One layer's stash of one micro-batch, as typed pointers into its allocation.
struct LayerStash
{
    Bf16 *x = nullptr;
    float *invRms1 = nullptr;
    Bf16 *normed1 = nullptr;
    Bf16 *q = nullptr; // after the rotation
    Bf16 *k = nullptr; // after the rotation
    Bf16 *v = nullptr;
    Bf16 *attn = nullptr;
    Bf16 *x1 = nullptr;
    float *invRms2 = nullptr;
    Bf16 *normed2 = nullptr;
    Bf16 *gate = nullptr; // SwiGLU only
    Bf16 *up = nullptr;

    static LayerStash at(std::byte *base, const LayerStashLayout &layout);
};

// The scratch of one call, as typed pointers (see ScratchLayout).
struct Scratch
{
    float *residual = nullptr;
    float *partial = nullptr;
    Bf16 *residualBf16 = nullptr;
    float *ffn = nullptr;
    Bf16 *ffnBf16 = nullptr;
    Bf16 *ffnBf16b = nullptr;
    float *qF = nullptr;
    float *kF = nullptr;
    float *vF = nullptr;
    Bf16 *qBf16 = nullptr;
    Bf16 *kBf16 = nullptr;
    Bf16 *vBf16 = nullptr;
    Bf16 *dAttn = nullptr;
    Bf16 *scores = nullptr;   // a chunk's score matrices, then their probabilities
    Bf16 *dScores = nullptr;  // their gradients (dP, then dS)
    int attentionKvHeads = 0; // KV heads per attention chunk (ScratchLayout)
    float *logits = nullptr;  // head shard only
    float *rowLoss = nullptr; // head shard only
    Bf16 *inputGrad = nullptr;
    float *gainPartials = nullptr;
    int *embeddingIndex = nullptr;

    static Scratch at(std::byte *base, const ScratchLayout &layout);
};

// What every step of a call shares.
struct LayerContext
{
    BlasHandle blas = nullptr;
    StreamHandle stream = nullptr;
    ShardDims dims;
    int samples = 0;
    const float *cosSin = nullptr; // the rotary table, [seqLen × headDim] (kernels.h rotary)
    DeviceTpComm *tp = nullptr;
    Scratch scratch;

    int tokens() const { return int(dims.tokens(samples)); }
};

// The rotary table of kernels::rotary for this model: [seqLen × headDim], pair i of a position
// at (2i, 2i + 1) holding (cos, sin) of its angle as runtime/model's RotaryTable computes them.
std::vector<float> rotaryCosSin(int seqLen, int headDim);

Status layerForward(const LayerContext &c, const LayerWeights &w, const LayerStash &s);
Status layerBackward(const LayerContext &c, const LayerWeights &w, const LayerStash &s);

// Causal attention over this shard's heads (causal_attention.h; docs/gpu-model.md#kernels): one
// sample at a time, the heads in chunks of scratch.attentionKvHeads KV heads, each chunk's heads
// in strided-batched GEMMs (by causal blocks of query rows) with bf16 scores and the fused scaled
// causal softmax; grouped-query heads read KV head h / (qHeads / kvHeads). Forward writes s.attn;
// backward recomputes the probabilities, takes dAttn (scratch) and writes the gradients of the
// rotated q, k and v into the fp32 scratch qF, kF, vF.
Status attentionForward(const LayerContext &c, const LayerStash &s);
Status attentionBackward(const LayerContext &c, const LayerStash &s);

} // namespace hetplan::runtime::cuda
