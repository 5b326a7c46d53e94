#include "runtime/serve/serve_shard.h"

#include "runtime/model/blas_gemm.h"
#include "runtime/model/compute_pace.h"
#include "runtime/model/fast_math.h"
#include "runtime/model/layer_kernels.h"
#include "runtime/model/model_tensors.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace hetplan::runtime {

namespace {

// One layer's weights on this shard (not owned; gate is null for GELU).
struct LayerWeights
{
    const float *attnNorm = nullptr;
    const float *q = nullptr;
    const float *k = nullptr;
    const float *v = nullptr;
    const float *o = nullptr;
    const float *mlpNorm = nullptr;
    const float *gate = nullptr;
    const float *up = nullptr;
    const float *down = nullptr;
};

// y[rows × out] = x[rows × in] · wᵀ for a weight stored out × in (column-parallel).
void projectOutIn(const std::vector<float> &x, const float *w, int rows, int in, int out,
                  std::vector<float> &y)
{
    y.resize(std::size_t(rows) * out);
    gemm(Transpose::No, Transpose::Yes, rows, out, in, x.data(), in, w, in, 0.0f, y.data(), out);
}

// y[rows × out] = x[rows × in] · w for a weight stored in × out (row-parallel o and down).
void projectInOut(const std::vector<float> &x, const float *w, int rows, int in, int out,
                  std::vector<float> &y)
{
    y.resize(std::size_t(rows) * out);
    gemm(Transpose::No, Transpose::No, rows, out, in, x.data(), in, w, out, 0.0f, y.data(), out);
}

} // namespace

struct ServeShard::State
{
    std::vector<std::vector<float>> tensors; // this shard's slices, in shardTensors order
    std::vector<LayerWeights> layers;
    const float *embedding = nullptr;
    const float *finalNorm = nullptr;
    const float *head = nullptr;
    RotaryTable rotary;
    KvCache cache;
    int qHeads = 0; // on this shard
    int kvHeads = 0;
    int ffnWidth = 0;
    // Scratch reused across calls.
    std::vector<float> x, normed, invRms, q, k, v, attn, partial, gate, up, act, scores;
    std::vector<int> positions;
};

ServeShard::ServeShard(ModelConfig config, ShardSpec shard)
    : m_config(std::move(config))
    , m_shard(shard)
    , m_state(std::make_unique<State>())
{}

ServeShard::ServeShard(ServeShard &&) noexcept = default;
ServeShard &ServeShard::operator=(ServeShard &&) noexcept = default;
ServeShard::~ServeShard() = default;

const KvCache &ServeShard::cache() const
{
    return m_state->cache;
}

Result<ServeShard> ServeShard::create(const ModelConfig &config, const ShardSpec &shard,
                                      const WeightSource &weights, ServeShardOptions options)
{
    if (Status s = validateShard(config, shard); !s)
        return s.error();
    if (Status s = checkServeCache(options.slots, options.capacityTokens); !s)
        return s.error();
    ServeShard result(config, shard);
    State &st = *result.m_state;
    const std::vector<TensorLayout> tensors = shardTensors(config, shard);
    st.tensors.reserve(tensors.size()); // the pointers below stay valid
    st.layers.resize(std::size_t(shard.layerEnd - shard.layerBegin));
    for (const TensorLayout &tensor : tensors) {
        const ElementRange slice = tpSlice(tensor, shard.tpIndex, shard.tpDegree);
        std::vector<float> &values = st.tensors.emplace_back(std::size_t(slice.size()));
        if (Status s = weights(tensor, slice, values); !s)
            return s.error();
        const float *data = values.data();
        if (tensor.kind == ParamKind::Embedding)
            st.embedding = data;
        else if (tensor.kind == ParamKind::FinalNorm)
            st.finalNorm = data;
        else if (tensor.kind == ParamKind::Head)
            st.head = data;
        else
            layerSlot(st.layers[std::size_t(tensor.layer - shard.layerBegin)], tensor.kind) = data;
    }
    st.qHeads = config.heads / shard.tpDegree;
    st.kvHeads = config.kvHeads / shard.tpDegree;
    st.ffnWidth = config.ffnHidden / shard.tpDegree;
    st.rotary = RotaryTable(options.capacityTokens, config.headDim());
    st.cache = KvCache(int(st.layers.size()), options.slots, options.capacityTokens,
                       st.kvHeads * config.headDim());
    return result;
}

std::size_t ServeShard::bytesHeld() const
{
    std::size_t floats = 0;
    for (const std::vector<float> &t : m_state->tensors)
        floats += t.size();
    return floats * sizeof(float) + m_state->cache.bytes();
}

Status ServeShard::forward(std::span<const TokenRow> rows, std::span<const float> input,
                           std::span<const int> logitRows, TpComm &tp, std::vector<float> &output)
{
    ComputePace pace;
    PacedTpComm pacedTp(tp, pace);
    State &st = *m_state;
    const int n = int(rows.size());
    const int hidden = m_config.hidden;
    const int d = m_config.headDim();
    const int qWidth = st.qHeads * d;
    const int kvWidth = st.kvHeads * d;
    const std::size_t expected = m_shard.hasEmbedding ? 0 : std::size_t(n) * hidden;
    if (Status s
        = checkServeStep(rows, input.size(), expected, logitRows, st.cache.slots(),
                         st.cache.capacityTokens(), m_shard.hasEmbedding ? m_config.vocab : 0);
        !s)
        return s;
    st.positions.resize(std::size_t(n));
    for (int r = 0; r < n; ++r)
        st.positions[std::size_t(r)] = rows[std::size_t(r)].position;

    std::vector<float> &x = st.x;
    if (m_shard.hasEmbedding) {
        x.resize(std::size_t(n) * hidden);
        for (int r = 0; r < n; ++r)
            std::copy_n(st.embedding + std::size_t(rows[std::size_t(r)].token) * hidden, hidden,
                        x.data() + std::size_t(r) * hidden);
    } else {
        x.assign(input.begin(), input.end());
    }

    const float scale = 1.0f / std::sqrt(float(d));
    const int group = st.qHeads / st.kvHeads;
    for (std::size_t l = 0; l < st.layers.size(); ++l) {
        const LayerWeights &w = st.layers[l];
        st.invRms.resize(std::size_t(n));
        st.normed.resize(x.size());
        rmsNormForward(x.data(), w.attnNorm, std::size_t(n), std::size_t(hidden), st.normed.data(),
                       st.invRms.data());
        projectOutIn(st.normed, w.q, n, hidden, qWidth, st.q);
        projectOutIn(st.normed, w.k, n, hidden, kvWidth, st.k);
        projectOutIn(st.normed, w.v, n, hidden, kvWidth, st.v);
        st.rotary.applyAt(st.q.data(), st.positions.data(), n, st.qHeads);
        st.rotary.applyAt(st.k.data(), st.positions.data(), n, st.kvHeads);
        for (int r = 0; r < n; ++r) {
            const TokenRow &row = rows[std::size_t(r)];
            const std::size_t at = std::size_t(row.position) * kvWidth;
            std::copy_n(st.k.data() + std::size_t(r) * kvWidth, kvWidth,
                        st.cache.keys(int(l), row.slot) + at);
            std::copy_n(st.v.data() + std::size_t(r) * kvWidth, kvWidth,
                        st.cache.values(int(l), row.slot) + at);
        }
        // Causal attention of each run of one slot's rows over the cache: row i of a run at
        // position p sees positions [0, p], as the training kernel's mask does.
        st.attn.resize(st.q.size());
        for (int r0 = 0; r0 < n;) {
            int r1 = r0 + 1;
            while (r1 < n && rows[std::size_t(r1)].slot == rows[std::size_t(r0)].slot)
                ++r1;
            const int slot = rows[std::size_t(r0)].slot;
            const int p0 = rows[std::size_t(r0)].position;
            const int seen = rows[std::size_t(r1 - 1)].position + 1;
            const int m = r1 - r0;
            st.scores.resize(std::size_t(m) * seen);
            const float *keys = st.cache.keys(int(l), slot);
            const float *values = st.cache.values(int(l), slot);
            for (int h = 0; h < st.qHeads; ++h) {
                const std::size_t kvCol = std::size_t(h / group) * d;
                float *out = st.attn.data() + std::size_t(r0) * qWidth + std::size_t(h) * d;
                gemm(Transpose::No, Transpose::Yes, m, seen, d,
                     st.q.data() + std::size_t(r0) * qWidth + std::size_t(h) * d, qWidth,
                     keys + kvCol, kvWidth, 0.0f, st.scores.data(), seen, scale);
                for (int i = 0; i < m; ++i) {
                    float *score = st.scores.data() + std::size_t(i) * seen;
                    softmaxInPlace(score, std::size_t(p0 + i) + 1);
                    std::fill(score + p0 + i + 1, score + seen, 0.0f);
                }
                gemm(Transpose::No, Transpose::No, m, d, seen, st.scores.data(), seen,
                     values + kvCol, kvWidth, 0.0f, out, qWidth);
            }
            r0 = r1;
        }
        projectInOut(st.attn, w.o, n, qWidth, hidden, st.partial);
        if (Status s = pacedTp.allReduceSum(st.partial.data(), st.partial.size()); !s)
            return s;
        for (std::size_t i = 0; i < x.size(); ++i)
            x[i] += st.partial[i];

        rmsNormForward(x.data(), w.mlpNorm, std::size_t(n), std::size_t(hidden), st.normed.data(),
                       st.invRms.data());
        projectOutIn(st.normed, w.up, n, hidden, st.ffnWidth, st.up);
        st.act.resize(st.up.size());
        if (m_config.mlp == MlpKind::SwiGlu) {
            projectOutIn(st.normed, w.gate, n, hidden, st.ffnWidth, st.gate);
            swiGluForward(st.gate.data(), st.up.data(), st.act.size(), st.act.data());
        } else {
            geluForward(st.up.data(), st.act.size(), st.act.data());
        }
        projectInOut(st.act, w.down, n, st.ffnWidth, hidden, st.partial);
        if (Status s = pacedTp.allReduceSum(st.partial.data(), st.partial.size()); !s)
            return s;
        for (std::size_t i = 0; i < x.size(); ++i)
            x[i] += st.partial[i];
    }

    if (!m_shard.hasHead) {
        output.assign(x.begin(), x.end());
        return okStatus();
    }
    const int picked = int(logitRows.size());
    output.clear();
    if (picked == 0)
        return okStatus();
    st.normed.resize(std::size_t(picked) * hidden);
    st.invRms.resize(std::size_t(picked));
    for (int i = 0; i < picked; ++i) {
        const int r = logitRows[std::size_t(i)];
        rmsNormForward(x.data() + std::size_t(r) * hidden, st.finalNorm, 1, std::size_t(hidden),
                       st.normed.data() + std::size_t(i) * hidden, st.invRms.data() + i);
    }
    output.resize(std::size_t(picked) * m_config.vocab);
    gemm(Transpose::No, Transpose::Yes, picked, m_config.vocab, hidden, st.normed.data(), hidden,
         st.head, hidden, 0.0f, output.data(), m_config.vocab);
    return okStatus();
}

} // namespace hetplan::runtime
