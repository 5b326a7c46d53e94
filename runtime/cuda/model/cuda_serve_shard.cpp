#include "runtime/cuda/model/cuda_serve_shard.h"

#include "runtime/cuda/device_buffer.h"
#include "runtime/cuda/model/cuda_layer.h"
#include "runtime/cuda/model/init_kernels.h"
#include "runtime/cuda/model/serve_kernels.h"
#include "runtime/model/model_init.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace hetplan::runtime::cuda {

namespace {

template<typename T>
T *at(const DeviceBuffer &buffer, std::size_t offset)
{
    return reinterpret_cast<T *>(buffer.as<std::byte>() + offset);
}

} // namespace

// One step's scratch for up to `rows` rows, as typed pointers into one allocation.
struct StepScratch
{
    float *residual = nullptr; // [rows × hidden] the residual stream
    float *partial = nullptr;  // [rows × hidden] a row-parallel GEMM's partial sum
    Bf16 *normed = nullptr;    // [rows × hidden]
    float *invRms = nullptr;   // [rows]
    float *qF = nullptr;       // [rows × qWidth] before the rotation
    float *kF = nullptr;       // [rows × kvWidth]
    Bf16 *q = nullptr;         // after the rotation
    Bf16 *k = nullptr;
    Bf16 *v = nullptr;
    Bf16 *attn = nullptr; // [rows × qWidth]
    Bf16 *up = nullptr;   // [rows × ffnWidth]
    Bf16 *gate = nullptr;
    Bf16 *act = nullptr;
    int *tokens = nullptr;    // [rows]
    int *positions = nullptr; // [rows]
    int *cacheRows = nullptr; // [rows] slot · capacityTokens + position
    float *picked = nullptr;  // head: [rows × hidden] the rows whose logits are wanted
    float *logits = nullptr;  // head: [rows × vocab]
};

// ShardWeights: where each parameter serves (cuda_layer.h).
struct CudaServeShard::State : ShardWeights
{
    OwnedBlas blas;
    ShardDims dims;
    std::vector<DeviceParameter> params;
    DeviceBuffer parameters; // every fp32 value, then every bf16 copy
    DeviceBuffer keys;       // bf16 [layers × slots × capacityTokens × kvWidth]
    DeviceBuffer values;
    DeviceBuffer rotary; // rotaryCosSin(capacityTokens, headDim)
    DeviceBuffer scratch;
    int scratchRows = 0;
    StepScratch step;
    std::vector<int> rowInts; // tokens, positions, cache rows of a step, on the host

    std::size_t layerCacheElements(const CudaServeOptions &o) const
    {
        return std::size_t(o.slots) * std::size_t(o.capacityTokens) * std::size_t(dims.kvWidth());
    }
};

CudaServeShard::CudaServeShard(ModelConfig config, ShardSpec shard, CudaServeOptions options,
                               StreamHandle stream, DeviceTpComm &tp)
    : m_config(std::move(config))
    , m_shard(shard)
    , m_options(std::move(options))
    , m_stream(stream)
    , m_tp(tp)
    , m_state(std::make_unique<State>())
{}

CudaServeShard::~CudaServeShard() = default;

Result<std::unique_ptr<CudaServeShard>>
CudaServeShard::create(const ModelConfig &config, const ShardSpec &shard,
                       const CudaServeOptions &options, StreamHandle stream, DeviceTpComm &tp)
{
    if (Status s = validateShard(config, shard); !s)
        return s.error();
    if (Status s = checkServeCache(options.slots, options.capacityTokens); !s)
        return s.error();
    std::unique_ptr<CudaServeShard> result(new CudaServeShard(config, shard, options, stream, tp));
    State &st = *result->m_state;
    st.dims = ShardDims::of(config, shard.tpDegree);
    auto blas = makeBlas(stream);
    if (!blas)
        return blas.error();
    st.blas = std::move(blas).value();
    if (Status s = result->makeWeights(); !s)
        return s.error();

    const std::size_t cacheBytes = std::size_t(shard.layerEnd - shard.layerBegin)
                                   * st.layerCacheElements(options) * sizeof(Bf16);
    for (DeviceBuffer *cache : {&st.keys, &st.values}) {
        if (Status s = cache->reserve(std::max<std::size_t>(cacheBytes, 1), "the KV cache"); !s)
            return s.error();
        if (Status s = zeroDevice(cache->as<void>(), cacheBytes, stream); !s)
            return s.error();
    }
    const std::vector<float> table = rotaryCosSin(options.capacityTokens, config.headDim());
    if (Status s = st.rotary.reserve(table.size() * sizeof(float), "the rotary table"); !s)
        return s.error();
    if (Status s
        = uploadOn(st.rotary.as<void>(), table.data(), table.size() * sizeof(float), stream);
        !s)
        return s.error();
    if (Status s = waitForDevice(); !s)
        return s.error();
    return result;
}

Status CudaServeShard::makeWeights()
{
    // Every GEMM reads the bf16 copy; only the embedding (gathered) and the norms' gains stay
    // in fp32 as well. The others are made (or uploaded) in fp32 through one staging buffer.
    const auto keepsFloats = [](ParamKind kind) {
        return kind == ParamKind::Embedding || kind == ParamKind::AttnNorm
               || kind == ParamKind::MlpNorm || kind == ParamKind::FinalNorm;
    };
    State &st = *m_state;
    std::vector<TensorLayout> tensors = shardTensors(m_config, m_shard);
    st.params.resize(tensors.size());
    BufferPlan plan;
    std::vector<std::size_t> offsets(tensors.size() * 2, BufferPlan::kNone);
    std::size_t stagingCount = 0;
    for (std::size_t kind = 0; kind < 2; ++kind)
        for (std::size_t i = 0; i < tensors.size(); ++i) {
            const auto count
                = std::size_t(tpSlice(tensors[i], m_shard.tpIndex, m_shard.tpDegree).size());
            if (kind == 1)
                offsets[tensors.size() + i] = plan.add(count, sizeof(Bf16));
            else if (keepsFloats(tensors[i].kind))
                offsets[i] = plan.add(count, sizeof(float));
            else
                stagingCount = std::max(stagingCount, count);
        }
    if (Status s = st.parameters.reserve(plan.bytes(), "a serving shard's weights"); !s)
        return s;
    DeviceBuffer staging;
    if (Status s = staging.reserve(stagingCount * sizeof(float) + 1, "staging the weights"); !s)
        return s;
    std::vector<float> host;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        DeviceParameter &p = st.params[i];
        p.slice = tpSlice(tensors[i], m_shard.tpIndex, m_shard.tpDegree);
        p.count = std::size_t(p.slice.size());
        p.value = offsets[i] == BufferPlan::kNone ? nullptr : at<float>(st.parameters, offsets[i]);
        p.valueBf16 = at<Bf16>(st.parameters, offsets[tensors.size() + i]);
        // Stream order lets the next tensor reuse the staging.
        float *floats = p.value != nullptr ? p.value : staging.as<float>();
        if (!m_options.weights) {
            kernels::initialWeights(weightInit(tensors[i], m_config.layers, m_options.seed),
                                    p.slice.begin, p.count, floats, p.valueBf16, m_stream);
        } else {
            host.resize(p.count);
            if (Status s = m_options.weights(tensors[i], p.slice, host); !s)
                return s;
            if (Status s = uploadOn(floats, host.data(), p.count * sizeof(float), m_stream); !s)
                return s;
            kernels::toBf16(floats, p.count, p.valueBf16, m_stream);
        }
        p.tensor = std::move(tensors[i]);
    }
    if (Status s = kernels::lastLaunchError("making a serving shard's weights"); !s)
        return s;
    if (Status s = waitForDevice(); !s) // before the staging goes
        return s;
    static_cast<ShardWeights &>(st) = shardWeights(st.params, m_shard.layerBegin);
    return okStatus();
}

namespace {

// Carves the scratch of `rows` rows; returns its bytes (and the pointers, given a base).
std::size_t carveScratch(const ShardDims &d, int rows, bool hasHead, std::byte *base,
                         StepScratch &s)
{
    BufferPlan plan;
    const auto n = std::size_t(rows);
    const auto h = std::size_t(d.hidden);
    const auto f = std::size_t(d.ffnWidth);
    struct Piece
    {
        std::size_t offset;
        void **pointer;
    };
    std::vector<Piece> pieces;
    const auto add = [&](auto *&pointer, std::size_t elements) {
        using T = std::remove_reference_t<decltype(*pointer)>;
        pieces.push_back({plan.add(elements, sizeof(T)), reinterpret_cast<void **>(&pointer)});
    };
    add(s.residual, n * h);
    add(s.partial, n * h);
    add(s.normed, n * h);
    add(s.invRms, n);
    add(s.qF, n * std::size_t(d.qWidth()));
    add(s.kF, n * std::size_t(d.kvWidth()));
    add(s.q, n * std::size_t(d.qWidth()));
    add(s.k, n * std::size_t(d.kvWidth()));
    add(s.v, n * std::size_t(d.kvWidth()));
    add(s.attn, n * std::size_t(d.qWidth()));
    add(s.up, n * f);
    add(s.gate, n * f);
    add(s.act, n * f);
    add(s.tokens, 3 * n); // tokens, positions, cache rows
    if (hasHead) {
        add(s.picked, n * h);
        add(s.logits, n * std::size_t(d.vocab));
    }
    if (base != nullptr)
        for (const Piece &p : pieces)
            *p.pointer = base + p.offset;
    s.positions = s.tokens == nullptr ? nullptr : s.tokens + n;
    s.cacheRows = s.tokens == nullptr ? nullptr : s.tokens + 2 * n;
    return plan.bytes();
}

} // namespace

Status CudaServeShard::forward(std::span<const TokenRow> rows, std::span<const float> input,
                               std::span<const int> logitRows, std::vector<float> &output)
{
    State &st = *m_state;
    const int n = int(rows.size());
    const int hidden = m_config.hidden;
    const std::size_t expected = m_shard.hasEmbedding ? 0 : std::size_t(n) * hidden;
    if (Status s
        = checkServeStep(rows, input.size(), expected, logitRows, m_options.slots,
                         m_options.capacityTokens, m_shard.hasEmbedding ? m_config.vocab : 0);
        !s)
        return s;
    st.rowInts.resize(3 * std::size_t(n));
    for (int r = 0; r < n; ++r) {
        const TokenRow &row = rows[std::size_t(r)];
        st.rowInts[std::size_t(r)] = row.token;
        st.rowInts[std::size_t(n + r)] = row.position;
        st.rowInts[std::size_t(2 * n + r)] = row.slot * m_options.capacityTokens + row.position;
    }
    output.clear();
    if (n == 0)
        return okStatus();
    if (n > st.scratchRows) {
        StepScratch none;
        const std::size_t bytes = carveScratch(st.dims, n, m_shard.hasHead, nullptr, none);
        if (Status s = st.scratch.reserve(bytes, "a serving step's scratch"); !s)
            return s;
        carveScratch(st.dims, n, m_shard.hasHead, st.scratch.as<std::byte>(), st.step);
        st.scratchRows = n;
    } else {
        carveScratch(st.dims, n, m_shard.hasHead, st.scratch.as<std::byte>(), st.step);
    }
    const StepScratch &x = st.step;
    if (Status s = uploadOn(x.tokens, st.rowInts.data(), st.rowInts.size() * sizeof(int), m_stream);
        !s)
        return s;
    if (m_shard.hasEmbedding)
        kernels::embeddingRows(st.embedding->value, x.tokens, n, hidden, x.residual, m_stream);
    else if (Status s = uploadOn(x.residual, input.data(), input.size_bytes(), m_stream); !s)
        return s;
    for (std::size_t l = 0; l < st.layers.size(); ++l)
        if (Status s = layer(l, n); !s)
            return s;
    if (m_shard.hasHead)
        return head(logitRows, output);
    if (Status s = kernels::lastLaunchError("a serving step"); !s)
        return s;
    if (Status s = m_tp.awaitQueued(); !s)
        return s;
    output.resize(std::size_t(n) * hidden);
    return downloadAfter(output.data(), x.residual, output.size() * sizeof(float), m_stream);
}

Status CudaServeShard::layer(std::size_t index, int rows)
{
    const State &st = *m_state;
    const ShardDims &d = st.dims;
    const StepScratch &x = st.step;
    const LayerWeights &w = st.layers[index];
    const int h = d.hidden;
    const int f = d.ffnWidth;
    const std::size_t count = std::size_t(rows) * std::size_t(h);
    // y[rows × out] = x · wᵀ for a weight stored out × in (q, k, v, gate, up).
    const auto projectOutIn = [&](const Bf16 *in, const DeviceParameter &weight, int inWidth,
                                  int out, const GemmOut &y) {
        return gemm(st.blas.get(), Transpose::No, Transpose::Yes, rows, out, inWidth, 1.0f,
                    {in, inWidth}, {weight.valueBf16, inWidth}, 0.0f, y);
    };
    // partial[rows × hidden] = x · w for a weight stored in × out (o, down), then the TP sum
    // into the residual stream.
    const auto rowParallel
        = [&](const Bf16 *in, const DeviceParameter &weight, int inWidth) -> Status {
        if (Status s = gemm(st.blas.get(), Transpose::No, Transpose::No, rows, h, inWidth, 1.0f,
                            {in, inWidth}, {weight.valueBf16, h}, 0.0f, GemmOut::f32(x.partial, h));
            !s)
            return s;
        if (Status s = kernels::lastLaunchError("a serving layer"); !s)
            return s;
        if (Status s = m_tp.allReduceSum(x.partial, count, m_stream); !s)
            return s;
        kernels::addInto(x.residual, x.partial, count, m_stream);
        return okStatus();
    };

    const std::size_t cacheAt = index * st.layerCacheElements(m_options);
    Bf16 *keys = st.keys.as<Bf16>() + cacheAt;
    Bf16 *values = st.values.as<Bf16>() + cacheAt;
    kernels::rmsNormForward(x.residual, w.attnNorm->value, rows, h, x.normed, x.invRms, nullptr,
                            m_stream);
    if (Status s = projectOutIn(x.normed, *w.q, h, d.qWidth(), GemmOut::f32(x.qF, d.qWidth())); !s)
        return s;
    if (Status s = projectOutIn(x.normed, *w.k, h, d.kvWidth(), GemmOut::f32(x.kF, d.kvWidth()));
        !s)
        return s;
    if (Status s = projectOutIn(x.normed, *w.v, h, d.kvWidth(), GemmOut::b16(x.v, d.kvWidth())); !s)
        return s;
    const auto *cosSin = st.rotary.as<float>();
    kernels::rotaryRows(x.qF, rows, d.qHeads, d.headDim, cosSin, x.positions, x.q, m_stream);
    kernels::rotaryRows(x.kF, rows, d.kvHeads, d.headDim, cosSin, x.positions, x.k, m_stream);
    kernels::storeKv(x.k, x.v, rows, d.kvWidth(), x.cacheRows, keys, values, m_stream);
    const kernels::DecodeAttention shape{rows,
                                         d.qHeads,
                                         d.kvHeads,
                                         d.headDim,
                                         m_options.capacityTokens,
                                         1.0f / std::sqrt(float(d.headDim))};
    if (Status s = kernels::decodeAttention(shape, x.q, keys, values, x.positions, x.cacheRows,
                                            x.attn, m_stream);
        !s)
        return s;
    if (Status s = rowParallel(x.attn, *w.o, d.qWidth()); !s)
        return s;

    kernels::rmsNormForward(x.residual, w.mlpNorm->value, rows, h, x.normed, x.invRms, nullptr,
                            m_stream);
    if (Status s = projectOutIn(x.normed, *w.up, h, f, GemmOut::b16(x.up, f)); !s)
        return s;
    const std::size_t ffnCount = std::size_t(rows) * std::size_t(f);
    if (d.mlp == MlpKind::SwiGlu) {
        if (Status s = projectOutIn(x.normed, *w.gate, h, f, GemmOut::b16(x.gate, f)); !s)
            return s;
        kernels::swiGluForward(x.gate, x.up, ffnCount, x.act, m_stream);
    } else {
        kernels::geluForward(x.up, ffnCount, x.act, m_stream);
    }
    return rowParallel(x.act, *w.down, f);
}

Status CudaServeShard::head(std::span<const int> logitRows, std::vector<float> &output)
{
    const State &st = *m_state;
    const StepScratch &x = st.step;
    const int h = m_config.hidden;
    const int vocab = m_config.vocab;
    const int picked = int(logitRows.size());
    const std::size_t rowBytes = std::size_t(h) * sizeof(float);
    for (int i = 0; i < picked; ++i)
        if (Status s = copyOnDevice(x.picked + std::size_t(i) * std::size_t(h),
                                    x.residual + std::size_t(logitRows[std::size_t(i)]) * h,
                                    rowBytes, m_stream);
            !s)
            return s;
    if (picked > 0) {
        kernels::rmsNormForward(x.picked, st.finalNorm->value, picked, h, x.normed, x.invRms,
                                nullptr, m_stream);
        if (Status s
            = gemm(st.blas.get(), Transpose::No, Transpose::Yes, picked, vocab, h, 1.0f,
                   {x.normed, h}, {st.head->valueBf16, h}, 0.0f, GemmOut::f32(x.logits, vocab));
            !s)
            return s;
    }
    if (Status s = kernels::lastLaunchError("a serving step's head"); !s)
        return s;
    if (Status s = m_tp.awaitQueued(); !s)
        return s;
    output.resize(std::size_t(picked) * std::size_t(vocab));
    return downloadAfter(output.data(), x.logits, output.size() * sizeof(float), m_stream);
}

ServeMemoryTable CudaServeShard::memoryTable() const
{
    const State &st = *m_state;
    return {st.parameters.bytes(), st.keys.bytes() + st.values.bytes(),
            st.scratch.bytes() + st.rotary.bytes()};
}

} // namespace hetplan::runtime::cuda
