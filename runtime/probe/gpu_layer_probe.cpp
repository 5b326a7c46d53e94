// One layer of the GPU runtime's own model, timed with CUDA events (docs/probe.md, "The layer").
#include "runtime/probe/gpu_layer_probe.h"

#include "runtime/cuda/model/cuda_shard.h"
#include "runtime/probe/gpu_check.h"
#include "runtime/probe/layer_figure.h"

#include <algorithm>
#include <functional>
#include <span>
#include <utility>

namespace hetplan::runtime::probe {
namespace {

using cuda::CudaShard;

// At most this many calls per repetition (an event after each part of each): a clock that reads
// 0 would otherwise ask for kMaxCallsPerRepetition of them.
constexpr int kMaxLayerCalls = 2000;

// Events recorded in order on one stream, made as a repetition first needs them and recorded
// again by the next repetition once the last one was waited for.
class EventChain
{
public:
    Status record(std::size_t i, cudaStream_t stream)
    {
        while (m_events.size() <= i) {
            auto event = makeEvent();
            if (!event)
                return event.error();
            m_events.push_back(std::move(*event));
        }
        return cuda::cudaCall(cudaEventRecord(m_events[i].get(), stream), "cudaEventRecord");
    }

    Status waitFor(std::size_t i) const
    {
        return cuda::cudaCall(cudaEventSynchronize(m_events[i].get()), "cudaEventSynchronize");
    }

    Result<double> secondsBetween(std::size_t a, std::size_t b) const
    {
        float ms = 0;
        if (Status s
            = cuda::cudaCall(cudaEventElapsedTime(&ms, m_events[a].get(), m_events[b].get()),
                             "cudaEventElapsedTime");
            !s)
            return s.error();
        return double(ms) / 1e3;
    }

private:
    std::vector<OwnedEvent> m_events;
};

// `count` bf16 values of filler() on the device.
Status upload(DeviceBuffer &buffer, std::size_t count, float amplitude)
{
    const std::vector<cuda::Bf16> values = cuda::toBf16(filler(count, amplitude));
    if (Status s = buffer.reserve(count * sizeof(cuda::Bf16), "the layer probe's input"); !s)
        return s;
    return cuda::uploadNow(buffer.as<void>(), values);
}

// Seconds per call of each of `parts` (each enqueues its work on `stream`), one sample per
// repetition, the repetitions as `plan` says (probe_timing.h). A call runs the parts in order,
// an event before the first and after each: the parts are timed apart within one call, with
// no wait between calls.
Result<std::vector<std::vector<double>>> timeParts(cudaStream_t stream, const TimingPlan &plan,
                                                   int repetitions,
                                                   std::span<const std::function<Status()>> parts)
{
    const std::size_t n = parts.size();
    EventChain events;
    std::vector<std::vector<double>> samples(n);
    auto perCallS = timeRepetitions(plan, repetitions, [&](int asked) -> Result<double> {
        const int calls = std::min(asked, kMaxLayerCalls);
        if (Status s = events.record(0, stream); !s)
            return s.error();
        for (std::size_t e = 0; e < std::size_t(calls) * n; ++e) {
            if (Status s = parts[e % n](); !s)
                return s.error();
            if (Status s = events.record(e + 1, stream); !s)
                return s.error();
        }
        if (Status s = events.waitFor(std::size_t(calls) * n); !s)
            return s.error();
        std::vector<double> sums(n, 0.0);
        for (std::size_t e = 0; e < std::size_t(calls) * n; ++e) {
            auto seconds = events.secondsBetween(e, e + 1);
            if (!seconds)
                return seconds.error();
            sums[e % n] += *seconds;
        }
        double totalS = 0;
        for (std::size_t p = 0; p < n; ++p) {
            samples[p].push_back(sums[p] / calls);
            totalS += sums[p] / calls;
        }
        return totalS;
    });
    if (!perCallS)
        return perCallS.error();
    // The untimed first call and the warm-up came first; the repetitions are the last ones.
    for (std::vector<double> &part : samples)
        part.erase(part.begin(), part.end() - std::ptrdiff_t(perCallS->size()));
    return samples;
}

Spread spreadPer(std::vector<double> samples, double divisor)
{
    for (double &s : samples)
        s /= divisor;
    return spreadOf(std::move(samples));
}

// Forward then backward of micro-batch `samples` on `shard`, one micro-batch in flight as a
// stage's 1F1B steady state has, per layer of the shard.
Result<PassTimes> timePasses(CudaShard &shard, int samples, const TimingPlan &plan, int repetitions)
{
    const ModelConfig &config = shard.config();
    const double layers = shard.spec().layerEnd - shard.spec().layerBegin;
    const auto values = std::size_t(config.tokens(samples)) * std::size_t(config.hidden);
    DeviceBuffer input;
    DeviceBuffer outputGrad;
    std::span<const cuda::Bf16> in;
    std::span<const cuda::Bf16> grad;
    if (!shard.spec().hasEmbedding) {
        if (Status s = upload(input, values, 0.5f); !s)
            return s.error();
        in = {input.as<const cuda::Bf16>(), values};
    }
    if (!shard.spec().hasHead) {
        if (Status s = upload(outputGrad, values, 1e-3f); !s)
            return s.error();
        grad = {outputGrad.as<const cuda::Bf16>(), values};
    }
    cuda::SoloDeviceTpComm tp;
    const std::function<Status()> passes[] = {[&]() -> Status {
                                                  auto out = shard.forward(0, {0, samples}, in, tp);
                                                  return out ? okStatus() : Status(out.error());
                                              },
                                              [&]() -> Status {
                                                  auto back = shard.backward(0, grad, tp);
                                                  return back ? okStatus() : Status(back.error());
                                              }};
    auto seconds = timeParts(shard.stream(), plan, repetitions, passes);
    if (!seconds)
        return seconds.error();
    if (Status s = shard.zeroGradients(); !s)
        return s.error();
    return PassTimes{spreadPer((*seconds)[0], layers), spreadPer((*seconds)[1], layers)};
}

Result<CudaShard> shardOf(const ModelConfig &config, int tp, bool embedding, bool head,
                          int globalBatch, cudaStream_t stream)
{
    TrainingSetup setup;
    setup.globalBatch = globalBatch;
    return CudaShard::create(config, {0, 1, 0, tp, embedding, head}, setup, stream);
}

} // namespace

Result<LayerFigure> gpuLayer(int device, const ModelSpec &model, const ProbeCommand &command)
{
    if (Status s = cuda::cudaCall(cudaSetDevice(device), "cudaSetDevice"); !s)
        return s.error();
    auto config = scaledModelConfig(model, command.seqLen, command.scale);
    if (!config)
        return config.error();
    auto stream = makeStream();
    if (!stream)
        return stream.error();
    const std::vector<int> microBatches = layerMicroBatches(command.microBatch);
    const int largest = microBatches.back();
    const int repetitions = std::max(command.repetitions, 1);
    bool firstOnDevice = true;
    const auto nextPlan = [&] {
        const TimingPlan plan = gpuTiming(command.quick, firstOnDevice);
        firstOnDevice = false;
        return plan;
    };
    LayerFigure figure = layerFigureHeading("runtime-cuda-layer", model, *config, command);

    // One shard at a time holds device memory: the layer, then it with the embedding, then with
    // the head.
    PassTimes given;
    {
        auto layer = shardOf(*config, command.tp, false, false, largest, stream->get());
        if (!layer)
            return layer.error();
        for (int b : microBatches) {
            auto times = timePasses(*layer, b, nextPlan(), repetitions);
            if (!times)
                return Error{times.error().kind,
                             "micro-batch " + std::to_string(b) + ": " + times.error().message};
            figure.points.push_back({b, times->forwardS, times->backwardS});
            if (b == command.microBatch)
                given = *times;
        }
    }
    const double tokens = double(config->tokens(command.microBatch));
    {
        auto embedding = shardOf(*config, command.tp, true, false, largest, stream->get());
        if (!embedding)
            return embedding.error();
        auto with = timePasses(*embedding, command.microBatch, nextPlan(), repetitions);
        if (!with)
            return Error{with.error().kind, "the embedding: " + with.error().message};
        setEmbeddingPerToken(figure, *with, given, tokens);
    }
    auto head = shardOf(*config, command.tp, false, true, largest, stream->get());
    if (!head)
        return head.error();
    auto with = timePasses(*head, command.microBatch, nextPlan(), repetitions);
    if (!with)
        return Error{with.error().kind, "the head: " + with.error().message};
    setHeadPerToken(figure, *with, given, tokens);

    // The optimizer over the head shard's parameters (the layer's slice and the head).
    double params = 0;
    for (const cuda::DeviceParameter &p : head->parameters())
        params += double(p.count);
    const std::function<Status()> step[] = {[&] { return head->optimizerStep(); }};
    auto stepS = timeParts(stream->get(), nextPlan(), repetitions, step);
    if (!stepS)
        return Error{stepS.error().kind, "the optimizer step: " + stepS.error().message};
    figure.optimizerSPerParam = spreadPer((*stepS)[0], params);
    return figure;
}

} // namespace hetplan::runtime::probe
