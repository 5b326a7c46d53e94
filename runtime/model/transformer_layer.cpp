#include "runtime/model/transformer_layer.h"

#include "runtime/model/blas_gemm.h"
#include "runtime/model/layer_kernels.h"
#include "runtime/model/model_shard.h"
#include "runtime/model/tp_comm.h"

#include <cstddef>

namespace hetplan::runtime {

namespace {

// y[tokens × out] = x[tokens × in] · wᵀ for a weight stored out × in.
void projectOutIn(const std::vector<float> &x, const Parameter &w, int tokens, int in, int out,
                  std::vector<float> &y)
{
    y.resize(std::size_t(tokens) * out);
    gemm(Transpose::No, Transpose::Yes, tokens, out, in, x.data(), in, w.value.data(), in, 0.0f,
         y.data(), out);
}

// Backward of projectOutIn: dW += dyᵀ·x; dx (+)= dy·W.
void projectOutInBackward(const std::vector<float> &dy, const std::vector<float> &x, Parameter &w,
                          int tokens, int in, int out, float beta, std::vector<float> &dx)
{
    gemm(Transpose::Yes, Transpose::No, out, in, tokens, dy.data(), out, x.data(), in, 1.0f,
         w.grad.data(), in);
    gemm(Transpose::No, Transpose::No, tokens, in, out, dy.data(), out, w.value.data(), in, beta,
         dx.data(), in);
}

// y[tokens × out] = x[tokens × in] · w for a weight stored in × out (row-parallel o and down).
void projectInOut(const std::vector<float> &x, const Parameter &w, int tokens, int in, int out,
                  std::vector<float> &y)
{
    y.resize(std::size_t(tokens) * out);
    gemm(Transpose::No, Transpose::No, tokens, out, in, x.data(), in, w.value.data(), out, 0.0f,
         y.data(), out);
}

// Backward of projectInOut: dW += xᵀ·dy; dx = dy·Wᵀ.
void projectInOutBackward(const std::vector<float> &dy, const std::vector<float> &x, Parameter &w,
                          int tokens, int in, int out, std::vector<float> &dx)
{
    gemm(Transpose::Yes, Transpose::No, in, out, tokens, x.data(), in, dy.data(), out, 1.0f,
         w.grad.data(), out);
    dx.resize(std::size_t(tokens) * in);
    gemm(Transpose::No, Transpose::Yes, tokens, in, out, dy.data(), out, w.value.data(), out, 0.0f,
         dx.data(), in);
}

void normForward(const std::vector<float> &x, const Parameter &gain, int tokens, int hidden,
                 std::vector<float> &invRms, std::vector<float> &normed)
{
    invRms.resize(std::size_t(tokens));
    normed.resize(x.size());
    rmsNormForward(x.data(), gain.value.data(), std::size_t(tokens), std::size_t(hidden),
                   normed.data(), invRms.data());
}

// dx += the norm's input gradient for dNormed; the gain's gradient accumulates.
void normBackwardAdd(const std::vector<float> &dNormed, const std::vector<float> &x,
                     const std::vector<float> &invRms, Parameter &gain, int tokens, int hidden,
                     std::vector<float> &dx, std::vector<float> &tmp)
{
    tmp.resize(x.size());
    rmsNormBackward(dNormed.data(), x.data(), invRms.data(), gain.value.data(), std::size_t(tokens),
                    std::size_t(hidden), tmp.data(), gain.grad.data());
    for (std::size_t i = 0; i < dx.size(); ++i)
        dx[i] += tmp[i];
}

void addInto(std::vector<float> &x, const std::vector<float> &y)
{
    for (std::size_t i = 0; i < x.size(); ++i)
        x[i] += y[i];
}

} // namespace

LayerDims LayerDims::of(const ModelConfig &c, int tpDegree)
{
    LayerDims d;
    d.hidden = c.hidden;
    d.qWidth = c.hidden / tpDegree;
    d.kvWidth = c.kvDim() / tpDegree;
    d.ffnWidth = c.ffnHidden / tpDegree;
    d.mlp = c.mlp;
    d.attention = {0, c.seqLen, c.heads / tpDegree, c.kvHeads / tpDegree, c.headDim()};
    return d;
}

Status layerForward(const LayerDims &d, int samples, const LayerParams &p, std::vector<float> &x,
                    LayerStash &s, TpComm &tp, LayerScratch &scratch)
{
    const int tokens = samples * d.attention.seqLen;
    AttentionShape shape = d.attention;
    shape.samples = samples;

    s.x = x;
    normForward(s.x, *p.attnNorm, tokens, d.hidden, s.invRms1, s.normed1);
    projectOutIn(s.normed1, *p.q, tokens, d.hidden, d.qWidth, s.q);
    projectOutIn(s.normed1, *p.k, tokens, d.hidden, d.kvWidth, s.k);
    projectOutIn(s.normed1, *p.v, tokens, d.hidden, d.kvWidth, s.v);
    d.rotary->apply(s.q.data(), samples, shape.qHeads, false);
    d.rotary->apply(s.k.data(), samples, shape.kvHeads, false);
    s.attn.resize(s.q.size());
    causalAttentionForward(shape, s.q.data(), s.k.data(), s.v.data(), s.attn.data(),
                           scratch.attention);
    std::vector<float> &partial = scratch.a;
    projectInOut(s.attn, *p.o, tokens, d.qWidth, d.hidden, partial);
    if (Status st = tp.allReduceSum(partial.data(), partial.size()); !st)
        return st;
    addInto(x, partial);

    s.x1 = x;
    normForward(s.x1, *p.mlpNorm, tokens, d.hidden, s.invRms2, s.normed2);
    std::vector<float> &act = scratch.b;
    act.resize(std::size_t(tokens) * d.ffnWidth);
    projectOutIn(s.normed2, *p.up, tokens, d.hidden, d.ffnWidth, s.up);
    if (d.mlp == MlpKind::SwiGlu) {
        projectOutIn(s.normed2, *p.gate, tokens, d.hidden, d.ffnWidth, s.gate);
        swiGluForward(s.gate.data(), s.up.data(), act.size(), act.data());
    } else {
        geluForward(s.up.data(), act.size(), act.data());
    }
    projectInOut(act, *p.down, tokens, d.ffnWidth, d.hidden, partial);
    if (Status st = tp.allReduceSum(partial.data(), partial.size()); !st)
        return st;
    addInto(x, partial);
    return okStatus();
}

Status layerBackward(const LayerDims &d, int samples, const LayerParams &p, std::vector<float> &dx,
                     const LayerStash &s, TpComm &tp, LayerScratch &scratch)
{
    const int tokens = samples * d.attention.seqLen;
    const std::size_t ffnCount = std::size_t(tokens) * d.ffnWidth;
    AttentionShape shape = d.attention;
    shape.samples = samples;
    std::vector<float> &act = scratch.a;
    std::vector<float> &dAct = scratch.b;
    std::vector<float> &dUp = scratch.c;
    std::vector<float> &dNormed = scratch.d;
    std::vector<float> &tmp = scratch.e;

    // MLP: recompute the activation (cheap) instead of keeping it.
    act.resize(ffnCount);
    if (d.mlp == MlpKind::SwiGlu)
        swiGluForward(s.gate.data(), s.up.data(), ffnCount, act.data());
    else
        geluForward(s.up.data(), ffnCount, act.data());
    projectInOutBackward(dx, act, *p.down, tokens, d.ffnWidth, d.hidden, dAct);
    dUp.resize(ffnCount);
    dNormed.resize(dx.size());
    if (d.mlp == MlpKind::SwiGlu) {
        std::vector<float> &dGate = act; // the activation is no longer needed
        swiGluBackward(dAct.data(), s.gate.data(), s.up.data(), ffnCount, dGate.data(), dUp.data());
        projectOutInBackward(dGate, s.normed2, *p.gate, tokens, d.hidden, d.ffnWidth, 0.0f,
                             dNormed);
        projectOutInBackward(dUp, s.normed2, *p.up, tokens, d.hidden, d.ffnWidth, 1.0f, dNormed);
    } else {
        geluBackward(dAct.data(), s.up.data(), ffnCount, dUp.data());
        projectOutInBackward(dUp, s.normed2, *p.up, tokens, d.hidden, d.ffnWidth, 0.0f, dNormed);
    }
    if (Status st = tp.allReduceSum(dNormed.data(), dNormed.size()); !st)
        return st;
    normBackwardAdd(dNormed, s.x1, s.invRms2, *p.mlpNorm, tokens, d.hidden, dx, tmp);

    // Attention.
    std::vector<float> &dAttn = scratch.b;
    projectInOutBackward(dx, s.attn, *p.o, tokens, d.qWidth, d.hidden, dAttn);
    std::vector<float> &dq = scratch.a;
    std::vector<float> &dk = scratch.c;
    std::vector<float> &dv = scratch.e;
    dq.resize(s.q.size());
    dk.resize(s.k.size());
    dv.resize(s.v.size());
    causalAttentionBackward(shape, s.q.data(), s.k.data(), s.v.data(), dAttn.data(), dq.data(),
                            dk.data(), dv.data(), scratch.attention);
    d.rotary->apply(dq.data(), samples, shape.qHeads, true);
    d.rotary->apply(dk.data(), samples, shape.kvHeads, true);
    projectOutInBackward(dq, s.normed1, *p.q, tokens, d.hidden, d.qWidth, 0.0f, dNormed);
    projectOutInBackward(dk, s.normed1, *p.k, tokens, d.hidden, d.kvWidth, 1.0f, dNormed);
    projectOutInBackward(dv, s.normed1, *p.v, tokens, d.hidden, d.kvWidth, 1.0f, dNormed);
    if (Status st = tp.allReduceSum(dNormed.data(), dNormed.size()); !st)
        return st;
    normBackwardAdd(dNormed, s.x, s.invRms1, *p.attnNorm, tokens, d.hidden, dx, scratch.b);
    return okStatus();
}

} // namespace hetplan::runtime
