// CudaShard's forward and backward (cuda_shard.h): model_shard.cpp's steps on the device.

#include "runtime/cuda/cuda_status.h"
#include "runtime/cuda/model/cuda_shard.h"
#include "runtime/cuda/model/cuda_shard_state.h"
#include "runtime/cuda/model/kernels.h"

#include <string>

namespace hetplan::runtime::cuda {

namespace {

Error callerError(std::string message)
{
    return {ErrorKind::Internal, std::move(message)};
}

// Marks the gradients whose backward work is enqueued (DeviceParameter::gradientsReady).
Status gradientsDone(cudaEvent_t event, StreamHandle stream)
{
    return cudaCall(cudaEventRecord(event, stream), "recording a gradient event");
}

// Scratch sized for `samples`, and the context every layer of the call shares.
Result<LayerContext> callContext(CudaShardState &st, StreamHandle stream, int samples, bool hasHead,
                                 DeviceTpComm &tp)
{
    const ScratchLayout layout = ScratchLayout::of(st.dims, samples, hasHead);
    if (Status s = st.scratch.reserve(layout.bytes); !s)
        return s.error();
    LayerContext c;
    c.blas = st.blas.get();
    c.stream = stream;
    c.dims = st.dims;
    c.samples = samples;
    c.cosSin = st.rotary.as<float>();
    c.tp = &tp;
    c.scratch = Scratch::at(st.scratch.as<std::byte>(), layout);
    return c;
}

} // namespace

Result<DeviceForwardOutput> CudaShard::forward(int microBatch, SampleSpan rows,
                                               std::span<const Bf16> input, DeviceTpComm &tp)
{
    CudaShardState &st = *m_state;
    if (rows.count <= 0 || rows.first < 0 || rows.first + rows.count > m_setup.globalBatch)
        return callerError(
            "forward of micro-batch " + std::to_string(microBatch) + ": samples ["
            + std::to_string(rows.first) + ", " + std::to_string(rows.first + rows.count)
            + ") are not inside the global batch of " + std::to_string(m_setup.globalBatch));
    if (st.inFlight.contains(microBatch))
        return callerError("forward of micro-batch " + std::to_string(microBatch)
                           + " while its previous forward awaits its backward");
    const int hidden = m_config.hidden;
    const std::size_t tokens = st.dims.tokens(rows.count);
    const std::size_t expected = m_shard.hasEmbedding ? 0 : tokens * std::size_t(hidden);
    if (input.size() != expected)
        return callerError("forward of micro-batch " + std::to_string(microBatch) + " got "
                           + std::to_string(input.size()) + " input values; expected "
                           + std::to_string(expected));
    Result<LayerContext> context = callContext(st, m_stream, rows.count, m_shard.hasHead, tp);
    if (!context)
        return context.error();
    const LayerContext &c = *context;

    MicroBatchStash stash;
    if (!st.spare.empty()) {
        stash = std::move(st.spare.back());
        st.spare.pop_back();
    }
    stash.rows = rows;
    stash.layout
        = MicroBatchLayout::of(st.dims, rows.count, int(st.layers.size()), m_shard.hasHead);
    if (Status s = stash.buffer.reserve(stash.layout.bytes); !s)
        return s.error();
    auto *base = stash.buffer.as<std::byte>();

    const kernels::TokenSource source{m_setup.seed, rows.first, rows.count, m_config.seqLen,
                                      m_config.vocab};
    if (m_shard.hasEmbedding)
        kernels::embeddingGather(st.embedding->value, source, hidden, c.scratch.residual, m_stream);
    else
        kernels::toFloat(input.data(), expected, c.scratch.residual, m_stream);
    for (std::size_t l = 0; l < st.layers.size(); ++l) {
        const LayerStash layer
            = LayerStash::at(base + l * stash.layout.layerBytes, stash.layout.layer);
        if (Status s = layerForward(c, st.layers[l], layer); !s) {
            st.spare.push_back(std::move(stash));
            return s.error();
        }
    }

    DeviceForwardOutput out;
    if (m_shard.hasHead) {
        const HeadStashLayout &h = stash.layout.head;
        auto *x = reinterpret_cast<Bf16 *>(base + h.x);
        auto *invRms = reinterpret_cast<float *>(base + h.invRms);
        auto *normed = reinterpret_cast<Bf16 *>(base + h.normed);
        auto *dLogits = reinterpret_cast<Bf16 *>(base + h.dLogits);
        const int vocab = m_config.vocab;
        kernels::rmsNormForward(c.scratch.residual, st.finalNorm->value, int(tokens), hidden,
                                normed, invRms, x, m_stream);
        if (Status s = gemm(st.blas.get(), Transpose::No, Transpose::Yes, int(tokens), vocab,
                            hidden, 1.0f, {normed, hidden}, {st.head->valueBf16, hidden}, 0.0f,
                            GemmOut::f32(c.scratch.logits, vocab));
            !s)
            return s.error();
        const double globalTokens = double(m_config.tokens(m_setup.globalBatch));
        kernels::crossEntropy(c.scratch.logits, source, float(1.0 / globalTokens), dLogits,
                              c.scratch.rowLoss, m_stream);
        if (Status s = kernels::lastLaunchError("forward of the head"); !s)
            return s.error();
        if (Status s = tp.awaitQueued(); !s)
            return s.error();
        st.rowLoss.resize(tokens);
        if (Status s
            = downloadAfter(st.rowLoss.data(), c.scratch.rowLoss, tokens * sizeof(float), m_stream);
            !s)
            return s.error();
        double lossSum = 0;
        for (const float loss : st.rowLoss)
            lossSum += loss;
        out.lossContribution = lossSum / globalTokens;
    } else {
        auto *output = reinterpret_cast<Bf16 *>(base + stash.layout.output);
        kernels::toBf16(c.scratch.residual, tokens * std::size_t(hidden), output, m_stream);
        out.activations = {output, tokens * std::size_t(hidden)};
    }
    if (Status s = kernels::lastLaunchError("forward"); !s)
        return s.error();
    st.inFlight.emplace(microBatch, std::move(stash));
    return out;
}

Result<std::span<const Bf16>> CudaShard::backward(int microBatch, std::span<const Bf16> outputGrad,
                                                  DeviceTpComm &tp)
{
    CudaShardState &st = *m_state;
    auto found = st.inFlight.find(microBatch);
    if (found == st.inFlight.end())
        return callerError("backward of micro-batch " + std::to_string(microBatch)
                           + ", which has no forward awaiting it");
    const MicroBatchStash &stash = found->second;
    const int hidden = m_config.hidden;
    const std::size_t tokens = st.dims.tokens(stash.rows.count);
    const std::size_t count = tokens * std::size_t(hidden);
    const std::size_t expected = m_shard.hasHead ? 0 : count;
    if (outputGrad.size() != expected)
        return callerError("backward of micro-batch " + std::to_string(microBatch) + " got "
                           + std::to_string(outputGrad.size()) + " gradient values; expected "
                           + std::to_string(expected));
    Result<LayerContext> context = callContext(st, m_stream, stash.rows.count, m_shard.hasHead, tp);
    if (!context)
        return context.error();
    const LayerContext &c = *context;
    auto *base = const_cast<std::byte *>(stash.buffer.as<std::byte>());

    if (m_shard.hasHead) {
        const HeadStashLayout &h = stash.layout.head;
        const auto *x = reinterpret_cast<const Bf16 *>(base + h.x);
        const auto *invRms = reinterpret_cast<const float *>(base + h.invRms);
        const auto *normed = reinterpret_cast<const Bf16 *>(base + h.normed);
        const auto *dLogits = reinterpret_cast<const Bf16 *>(base + h.dLogits);
        const int vocab = m_config.vocab;
        if (Status s
            = gemm(st.blas.get(), Transpose::Yes, Transpose::No, vocab, hidden, int(tokens), 1.0f,
                   {dLogits, vocab}, {normed, hidden}, 1.0f, GemmOut::f32(st.head->grad, hidden));
            !s)
            return s.error();
        if (Status s = gemm(st.blas.get(), Transpose::No, Transpose::No, int(tokens), hidden, vocab,
                            1.0f, {dLogits, vocab}, {st.head->valueBf16, hidden}, 0.0f,
                            GemmOut::f32(c.scratch.partial, hidden));
            !s)
            return s.error();
        if (Status s = zeroDevice(c.scratch.residual, count * sizeof(float), m_stream); !s)
            return s.error();
        kernels::rmsNormBackward(c.scratch.partial, x, invRms, st.finalNorm->value, int(tokens),
                                 hidden, c.scratch.residual, st.finalNorm->grad,
                                 c.scratch.gainPartials, m_stream);
        if (Status s = gradientsDone(st.headGradientsDone(), m_stream); !s)
            return s.error();
    } else {
        kernels::toFloat(outputGrad.data(), count, c.scratch.residual, m_stream);
    }

    for (std::size_t l = st.layers.size(); l-- > 0;) {
        const LayerStash layer
            = LayerStash::at(base + l * stash.layout.layerBytes, stash.layout.layer);
        if (Status s = layerBackward(c, st.layers[l], layer); !s)
            return s.error();
        if (Status s = gradientsDone(st.layerGradientsDone(l), m_stream); !s)
            return s.error();
    }

    std::span<const Bf16> inputGrad;
    if (m_shard.hasEmbedding) {
        const kernels::TokenSource source{m_setup.seed, stash.rows.first, stash.rows.count,
                                          m_config.seqLen, m_config.vocab};
        kernels::embeddingScatterAdd(c.scratch.residual, source, hidden, st.embedding->grad,
                                     c.scratch.embeddingIndex, m_stream);
        if (Status s = gradientsDone(st.embeddingGradientsDone(), m_stream); !s)
            return s.error();
    } else {
        kernels::toBf16(c.scratch.residual, count, c.scratch.inputGrad, m_stream);
        inputGrad = {c.scratch.inputGrad, count};
    }
    if (Status s = kernels::lastLaunchError("backward"); !s)
        return s.error();
    st.spare.push_back(std::move(found->second));
    st.inFlight.erase(found);
    return inputGrad;
}

} // namespace hetplan::runtime::cuda
