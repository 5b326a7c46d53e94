#pragma once

// Plain causal self-attention over the heads a TP shard holds (softmax of masked scores; no fused
// kernel). Layouts: q [samples·seqLen × qHeads·headDim], k and v [samples·seqLen ×
// kvHeads·headDim], out like q; head j's features are columns [j·headDim, (j+1)·headDim).
// Grouped-query attention: query head j reads KV head j / (qHeads / kvHeads).

#include <vector>

namespace hetplan::runtime {

struct AttentionShape
{
    int samples = 0;
    int seqLen = 0;
    int qHeads = 0;  // on this shard
    int kvHeads = 0; // on this shard
    int headDim = 0;
};

void causalAttentionForward(const AttentionShape &shape, const float *q, const float *k,
                            const float *v, float *out, std::vector<float> &scratch);

// dq, dk, dv are overwritten. The probabilities are recomputed from q and k rather than kept
// from the forward: seqLen² floats per head and sample would dominate a stage's memory.
void causalAttentionBackward(const AttentionShape &shape, const float *q, const float *k,
                             const float *v, const float *dOut, float *dq, float *dk, float *dv,
                             std::vector<float> &scratch);

} // namespace hetplan::runtime
