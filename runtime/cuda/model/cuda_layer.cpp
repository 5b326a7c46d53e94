#include "runtime/cuda/model/cuda_layer.h"

#include "runtime/cuda/model/kernels.h"
#include "runtime/model/rotary_embedding.h"

namespace hetplan::runtime::cuda {

namespace {

template<typename T>
T *piece(std::byte *base, std::size_t offset)
{
    return offset == BufferPlan::kNone ? nullptr : reinterpret_cast<T *>(base + offset);
}

// y[tokens × out] = x · wᵀ for a weight stored out × in (q, k, v, gate, up).
Status projectOutIn(const LayerContext &c, const Bf16 *x, const DeviceParameter &w, int in, int out,
                    const GemmOut &y)
{
    return gemm(c.blas, Transpose::No, Transpose::Yes, c.tokens(), out, in, 1.0f, {x, in},
                {w.valueBf16, in}, 0.0f, y);
}

// Backward of projectOutIn: dW += dyᵀ·x; dx (+)= dy·W (fp32, beta 0 or 1).
Status projectOutInBackward(const LayerContext &c, const Bf16 *dy, const Bf16 *x,
                            const DeviceParameter &w, int in, int out, float beta, float *dx)
{
    if (Status s = gemm(c.blas, Transpose::Yes, Transpose::No, out, in, c.tokens(), 1.0f, {dy, out},
                        {x, in}, 1.0f, GemmOut::f32(w.grad, in));
        !s)
        return s;
    return gemm(c.blas, Transpose::No, Transpose::No, c.tokens(), in, out, 1.0f, {dy, out},
                {w.valueBf16, in}, beta, GemmOut::f32(dx, in));
}

// y[tokens × out] = x · w for a weight stored in × out (o, down), fp32 for the all-reduce.
Status projectInOut(const LayerContext &c, const Bf16 *x, const DeviceParameter &w, int in, int out,
                    float *y)
{
    return gemm(c.blas, Transpose::No, Transpose::No, c.tokens(), out, in, 1.0f, {x, in},
                {w.valueBf16, out}, 0.0f, GemmOut::f32(y, out));
}

// Backward of projectInOut: dW += xᵀ·dy; dx = dy·Wᵀ (bf16: it is multiplied next).
Status projectInOutBackward(const LayerContext &c, const Bf16 *dy, const Bf16 *x,
                            const DeviceParameter &w, int in, int out, Bf16 *dx)
{
    if (Status s = gemm(c.blas, Transpose::Yes, Transpose::No, in, out, c.tokens(), 1.0f, {x, in},
                        {dy, out}, 1.0f, GemmOut::f32(w.grad, out));
        !s)
        return s;
    return gemm(c.blas, Transpose::No, Transpose::Yes, c.tokens(), in, out, 1.0f, {dy, out},
                {w.valueBf16, out}, 0.0f, GemmOut::b16(dx, in));
}

// The residual gradient as the bf16 operand of the next GEMMs.
void residualGradToBf16(const LayerContext &c)
{
    const std::size_t count = std::size_t(c.tokens()) * std::size_t(c.dims.hidden);
    kernels::toBf16(c.scratch.residual, count, c.scratch.residualBf16, c.stream);
}

// The partial sum of a row-parallel GEMM: all-reduce, then into the residual stream.
Status reduceIntoResidual(const LayerContext &c)
{
    const std::size_t count = std::size_t(c.tokens()) * std::size_t(c.dims.hidden);
    if (Status s = kernels::lastLaunchError("layer forward"); !s)
        return s;
    if (Status s = c.tp->allReduceSum(c.scratch.partial, count, c.stream); !s)
        return s;
    kernels::addInto(c.scratch.residual, c.scratch.partial, count, c.stream);
    return okStatus();
}

// The all-reduced input gradient of a norm (scratch.partial) through the norm, into the residual
// gradient.
Status normBackward(const LayerContext &c, const DeviceParameter &gain, const Bf16 *x,
                    const float *invRms)
{
    const std::size_t count = std::size_t(c.tokens()) * std::size_t(c.dims.hidden);
    if (Status s = kernels::lastLaunchError("layer backward"); !s)
        return s;
    if (Status s = c.tp->allReduceSum(c.scratch.partial, count, c.stream); !s)
        return s;
    kernels::rmsNormBackward(c.scratch.partial, x, invRms, gain.value, c.tokens(), c.dims.hidden,
                             c.scratch.residual, gain.grad, c.scratch.gainPartials, c.stream);
    return okStatus();
}

void activation(const LayerContext &c, const LayerStash &s, Bf16 *out)
{
    const std::size_t count = std::size_t(c.tokens()) * std::size_t(c.dims.ffnWidth);
    if (c.dims.mlp == MlpKind::SwiGlu)
        kernels::swiGluForward(s.gate, s.up, count, out, c.stream);
    else
        kernels::geluForward(s.up, count, out, c.stream);
}

} // namespace

ShardWeights shardWeights(std::span<const DeviceParameter> params, int layerBegin)
{
    ShardWeights w;
    for (const DeviceParameter &p : params) {
        const ParamKind kind = p.tensor.kind;
        if (kind == ParamKind::Embedding)
            w.embedding = &p;
        else if (kind == ParamKind::FinalNorm)
            w.finalNorm = &p;
        else if (kind == ParamKind::Head)
            w.head = &p;
        if (p.tensor.layer < 0)
            continue;
        const auto index = std::size_t(p.tensor.layer - layerBegin);
        if (w.layers.size() <= index)
            w.layers.resize(index + 1);
        layerSlot(w.layers[index], kind) = &p;
    }
    return w;
}

std::vector<float> rotaryCosSin(int seqLen, int headDim)
{
    // RotaryTable's cos and sin, read out by rotating unit vectors (1, 0): each pair becomes
    // (cos, sin) of its angle, the very floats the CPU model rotates with.
    std::vector<float> table(std::size_t(seqLen) * std::size_t(headDim), 0.0f);
    for (std::size_t row = 0; row < std::size_t(seqLen); ++row) {
        for (int pair = 0; pair < headDim / 2; ++pair)
            table[row * std::size_t(headDim) + std::size_t(2 * pair)] = 1.0f;
    }
    RotaryTable(seqLen, headDim).apply(table.data(), 1, 1, false);
    return table;
}

LayerStash LayerStash::at(std::byte *base, const LayerStashLayout &l)
{
    return {
        piece<Bf16>(base, l.x),       piece<float>(base, l.invRms1), piece<Bf16>(base, l.normed1),
        piece<Bf16>(base, l.q),       piece<Bf16>(base, l.k),        piece<Bf16>(base, l.v),
        piece<Bf16>(base, l.attn),    piece<Bf16>(base, l.x1),       piece<float>(base, l.invRms2),
        piece<Bf16>(base, l.normed2), piece<Bf16>(base, l.gate),     piece<Bf16>(base, l.up)};
}

Scratch Scratch::at(std::byte *base, const ScratchLayout &l)
{
    Scratch s;
    s.residual = piece<float>(base, l.residual);
    s.partial = piece<float>(base, l.partial);
    s.residualBf16 = piece<Bf16>(base, l.residualBf16);
    s.ffn = piece<float>(base, l.ffn);
    s.ffnBf16 = piece<Bf16>(base, l.ffnBf16);
    s.ffnBf16b = piece<Bf16>(base, l.ffnBf16b);
    s.qF = piece<float>(base, l.qF);
    s.kF = piece<float>(base, l.kF);
    s.vF = piece<float>(base, l.vF);
    s.qBf16 = piece<Bf16>(base, l.qBf16);
    s.kBf16 = piece<Bf16>(base, l.kBf16);
    s.vBf16 = piece<Bf16>(base, l.vBf16);
    s.dAttn = piece<Bf16>(base, l.dAttn);
    s.scores = piece<Bf16>(base, l.scores);
    s.dScores = piece<Bf16>(base, l.dScores);
    s.attentionKvHeads = l.attentionKvHeads;
    s.logits = piece<float>(base, l.logits);
    s.rowLoss = piece<float>(base, l.rowLoss);
    s.inputGrad = piece<Bf16>(base, l.inputGrad);
    s.gainPartials = piece<float>(base, l.gainPartials);
    s.embeddingIndex = piece<int>(base, l.embeddingIndex);
    return s;
}

Status layerForward(const LayerContext &c, const LayerWeights &w, const LayerStash &s)
{
    const ShardDims &d = c.dims;
    const Scratch &x = c.scratch;
    const int h = d.hidden;
    kernels::rmsNormForward(x.residual, w.attnNorm->value, c.tokens(), h, s.normed1, s.invRms1, s.x,
                            c.stream);
    if (Status st = projectOutIn(c, s.normed1, *w.q, h, d.qWidth(), GemmOut::f32(x.qF, d.qWidth()));
        !st)
        return st;
    if (Status st
        = projectOutIn(c, s.normed1, *w.k, h, d.kvWidth(), GemmOut::f32(x.kF, d.kvWidth()));
        !st)
        return st;
    if (Status st
        = projectOutIn(c, s.normed1, *w.v, h, d.kvWidth(), GemmOut::b16(s.v, d.kvWidth()));
        !st)
        return st;
    kernels::rotary(x.qF, c.samples, d.seqLen, d.qHeads, d.headDim, c.cosSin, false, s.q, c.stream);
    kernels::rotary(x.kF, c.samples, d.seqLen, d.kvHeads, d.headDim, c.cosSin, false, s.k,
                    c.stream);
    if (Status st = attentionForward(c, s); !st)
        return st;
    if (Status st = projectInOut(c, s.attn, *w.o, d.qWidth(), h, x.partial); !st)
        return st;
    if (Status st = reduceIntoResidual(c); !st)
        return st;

    kernels::rmsNormForward(x.residual, w.mlpNorm->value, c.tokens(), h, s.normed2, s.invRms2, s.x1,
                            c.stream);
    const int f = d.ffnWidth;
    if (Status st = projectOutIn(c, s.normed2, *w.up, h, f, GemmOut::b16(s.up, f)); !st)
        return st;
    if (d.mlp == MlpKind::SwiGlu) {
        if (Status st = projectOutIn(c, s.normed2, *w.gate, h, f, GemmOut::b16(s.gate, f)); !st)
            return st;
    }
    activation(c, s, x.ffnBf16);
    if (Status st = projectInOut(c, x.ffnBf16, *w.down, f, h, x.partial); !st)
        return st;
    return reduceIntoResidual(c);
}

Status layerBackward(const LayerContext &c, const LayerWeights &w, const LayerStash &s)
{
    const ShardDims &d = c.dims;
    const Scratch &x = c.scratch;
    const int h = d.hidden;
    const int f = d.ffnWidth;
    const std::size_t ffnCount = std::size_t(c.tokens()) * std::size_t(f);

    // MLP: the activation is recomputed (cheap) rather than kept.
    residualGradToBf16(c);
    activation(c, s, x.ffnBf16);
    if (Status st = gemm(c.blas, Transpose::Yes, Transpose::No, f, h, c.tokens(), 1.0f,
                         {x.ffnBf16, f}, {x.residualBf16, h}, 1.0f, GemmOut::f32(w.down->grad, h));
        !st)
        return st;
    if (Status st = gemm(c.blas, Transpose::No, Transpose::Yes, c.tokens(), f, h, 1.0f,
                         {x.residualBf16, h}, {w.down->valueBf16, h}, 0.0f, GemmOut::f32(x.ffn, f));
        !st)
        return st;
    Bf16 *dUp = x.ffnBf16b;
    if (d.mlp == MlpKind::SwiGlu) {
        Bf16 *dGate = x.ffnBf16; // the activation is no longer needed
        kernels::swiGluBackward(x.ffn, s.gate, s.up, ffnCount, dGate, dUp, c.stream);
        if (Status st = projectOutInBackward(c, dGate, s.normed2, *w.gate, h, f, 0.0f, x.partial);
            !st)
            return st;
        if (Status st = projectOutInBackward(c, dUp, s.normed2, *w.up, h, f, 1.0f, x.partial); !st)
            return st;
    } else {
        kernels::geluBackward(x.ffn, s.up, ffnCount, dUp, c.stream);
        if (Status st = projectOutInBackward(c, dUp, s.normed2, *w.up, h, f, 0.0f, x.partial); !st)
            return st;
    }
    if (Status st = normBackward(c, *w.mlpNorm, s.x1, s.invRms2); !st)
        return st;

    // Attention.
    residualGradToBf16(c);
    if (Status st = projectInOutBackward(c, x.residualBf16, s.attn, *w.o, d.qWidth(), h, x.dAttn);
        !st)
        return st;
    if (Status st = attentionBackward(c, s); !st)
        return st;
    kernels::rotary(x.qF, c.samples, d.seqLen, d.qHeads, d.headDim, c.cosSin, true, x.qBf16,
                    c.stream);
    kernels::rotary(x.kF, c.samples, d.seqLen, d.kvHeads, d.headDim, c.cosSin, true, x.kBf16,
                    c.stream);
    kernels::toBf16(x.vF, std::size_t(c.tokens()) * std::size_t(d.kvWidth()), x.vBf16, c.stream);
    if (Status st
        = projectOutInBackward(c, x.qBf16, s.normed1, *w.q, h, d.qWidth(), 0.0f, x.partial);
        !st)
        return st;
    if (Status st
        = projectOutInBackward(c, x.kBf16, s.normed1, *w.k, h, d.kvWidth(), 1.0f, x.partial);
        !st)
        return st;
    if (Status st
        = projectOutInBackward(c, x.vBf16, s.normed1, *w.v, h, d.kvWidth(), 1.0f, x.partial);
        !st)
        return st;
    return normBackward(c, *w.attnNorm, s.x, s.invRms1);
}

} // namespace hetplan::runtime::cuda
