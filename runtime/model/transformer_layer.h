#pragma once

// One transformer block on one TP shard (Megatron-LM's split), forward and backward:
//   x1  = x  + allReduce(attention(rmsNorm(x)) · o)      q, k, v column-parallel, o row-parallel;
//                                                        q and k rotated (rotary_embedding.h)
//   out = x1 + allReduce(mlp(rmsNorm(x1)) · down)         gate/up column-parallel, down
//   row-parallel
// In backward the input gradient of each norm is all-reduced (the column-parallel GEMMs see only
// their slice), so the norm gains get the same gradient on every TP rank.

#include "core/base/result.h"
#include "runtime/model/causal_attention.h"
#include "runtime/model/model_config.h"
#include "runtime/model/rotary_embedding.h"

#include <vector>

namespace hetplan::runtime {

struct Parameter;
class TpComm;

// This shard's parameters of one layer (not owned). gate is null for GELU.
struct LayerParams
{
    Parameter *attnNorm = nullptr;
    Parameter *q = nullptr;
    Parameter *k = nullptr;
    Parameter *v = nullptr;
    Parameter *o = nullptr;
    Parameter *mlpNorm = nullptr;
    Parameter *gate = nullptr;
    Parameter *up = nullptr;
    Parameter *down = nullptr;
};

// What one layer's backward needs from its forward, for one micro-batch.
struct LayerStash
{
    std::vector<float> x, invRms1, normed1;  // block input and its norm
    std::vector<float> q, k, v, attn;        // this shard's heads
    std::vector<float> x1, invRms2, normed2; // after the attention residual, and its norm
    std::vector<float> gate, up;             // pre-activation MLP columns (gate: SwiGLU only)
};

// Sizes of one layer on one shard.
struct LayerDims
{
    int hidden = 0;
    int qWidth = 0;   // this shard's heads · headDim
    int kvWidth = 0;  // this shard's kv heads · headDim
    int ffnWidth = 0; // this shard's FFN columns
    MlpKind mlp = MlpKind::SwiGlu;
    AttentionShape attention;            // samples set per call
    const RotaryTable *rotary = nullptr; // not owned

    static LayerDims of(const ModelConfig &config, int tpDegree);
};

// Scratch reused across layers and calls (not part of any result).
struct LayerScratch
{
    std::vector<float> a, b, c, d, e, attention;
};

// x ([samples·seqLen × hidden]) becomes the block's output in place.
Status layerForward(const LayerDims &dims, int samples, const LayerParams &p, std::vector<float> &x,
                    LayerStash &stash, TpComm &tp, LayerScratch &scratch);
// dx: the gradient of the block's output becomes the gradient of its input, in place.
// Gradients are accumulated into p's grads.
Status layerBackward(const LayerDims &dims, int samples, const LayerParams &p,
                     std::vector<float> &dx, const LayerStash &stash, TpComm &tp,
                     LayerScratch &scratch);

} // namespace hetplan::runtime
