#include "runtime/model/model_shard.h"

#include "runtime/model/blas_gemm.h"
#include "runtime/model/compute_pace.h"
#include "runtime/model/layer_kernels.h"
#include "runtime/model/model_init.h"
#include "runtime/model/transformer_layer.h"

#include <algorithm>
#include <map>
#include <string>

namespace hetplan::runtime {

namespace {

struct HeadStash
{
    std::vector<float> x, invRms, normed;
    std::vector<float> dLogits; // the loss gradient, computed with the loss in forward
};

struct MicroBatchStash
{
    SampleSpan rows;
    std::vector<LayerStash> layers;
    HeadStash head;
};

Error callerError(std::string message)
{
    return {ErrorKind::Internal, std::move(message)};
}

} // namespace

class ShardState
{
public:
    RotaryTable rotary;
    LayerDims dims;
    std::vector<LayerParams> layers; // this shard's layers, in order
    Parameter *embedding = nullptr;
    Parameter *finalNorm = nullptr;
    Parameter *head = nullptr;
    std::map<int, MicroBatchStash> inFlight;
    // Stashes of finished micro-batches, reused so that a forward does not allocate (and the
    // kernel zero) its buffers afresh.
    std::vector<MicroBatchStash> spare;
    LayerScratch scratch;
};

ModelShard::ModelShard(ModelConfig config, ShardSpec shard, TrainingSetup setup)
    : m_config(std::move(config))
    , m_shard(shard)
    , m_setup(setup)
    , m_state(std::make_unique<ShardState>())
{}

ModelShard::ModelShard(ModelShard &&) noexcept = default;
ModelShard &ModelShard::operator=(ModelShard &&) noexcept = default;
ModelShard::~ModelShard() = default;

Result<ModelShard> ModelShard::create(const ModelConfig &config, const ShardSpec &shard,
                                      const TrainingSetup &setup)
{
    if (Status s = validateShard(config, shard); !s)
        return s.error();
    if (setup.globalBatch <= 0)
        return badInput("global batch " + std::to_string(setup.globalBatch)
                        + " must be a positive number of samples");
    ModelShard result(config, shard, setup);
    for (TensorLayout &tensor : shardTensors(config, shard)) {
        Parameter p;
        p.slice = tpSlice(tensor, shard.tpIndex, shard.tpDegree);
        const auto size = std::size_t(p.slice.size());
        p.value.resize(size);
        initialWeights(tensor, config.layers, setup.seed, p.slice, p.value);
        p.grad.assign(size, 0.0f);
        p.adamM.assign(size, 0.0f);
        p.adamV.assign(size, 0.0f);
        p.tensor = std::move(tensor);
        result.m_params.push_back(std::move(p));
    }
    // The pointers stay valid: m_params never grows again, and moving a vector keeps its elements.
    ShardState &state = *result.m_state;
    state.rotary = RotaryTable(config.seqLen, config.headDim());
    state.dims = LayerDims::of(config, shard.tpDegree);
    state.dims.rotary = &state.rotary; // ShardState lives on the heap: moves keep the address
    for (Parameter &p : result.m_params) {
        const ParamKind kind = p.tensor.kind;
        if (kind == ParamKind::Embedding)
            state.embedding = &p;
        else if (kind == ParamKind::FinalNorm)
            state.finalNorm = &p;
        else if (kind == ParamKind::Head)
            state.head = &p;
        if (p.tensor.layer < 0)
            continue;
        const auto index = std::size_t(p.tensor.layer - shard.layerBegin);
        if (state.layers.size() <= index)
            state.layers.resize(index + 1);
        layerSlot(state.layers[index], kind) = &p;
    }
    return result;
}

Result<ForwardOutput> ModelShard::forward(int microBatch, SampleSpan rows,
                                          std::span<const float> input, TpComm &tp)
{
    ComputePace pace;
    PacedTpComm pacedTp(tp, pace);
    ShardState &st = *m_state;
    if (rows.count <= 0 || rows.first < 0 || rows.first + rows.count > m_setup.globalBatch)
        return callerError(
            "forward of micro-batch " + std::to_string(microBatch) + ": samples ["
            + std::to_string(rows.first) + ", " + std::to_string(rows.first + rows.count)
            + ") are not inside the global batch of " + std::to_string(m_setup.globalBatch));
    if (st.inFlight.contains(microBatch))
        return callerError("forward of micro-batch " + std::to_string(microBatch)
                           + " while its previous forward awaits its backward");
    const int hidden = m_config.hidden;
    const int seqLen = m_config.seqLen;
    const auto tokens = std::size_t(m_config.tokens(rows.count));
    const std::size_t expected = m_shard.hasEmbedding ? 0 : tokens * std::size_t(hidden);
    if (input.size() != expected)
        return callerError("forward of micro-batch " + std::to_string(microBatch) + " got "
                           + std::to_string(input.size()) + " input values; expected "
                           + std::to_string(expected));

    std::vector<float> x;
    if (m_shard.hasEmbedding) {
        x.resize(tokens * std::size_t(hidden));
        const float *table = st.embedding->value.data();
        for (int b = 0; b < rows.count; ++b) {
            for (int pos = 0; pos < seqLen; ++pos) {
                const int token = syntheticToken(m_setup.seed, rows.first + b, pos, m_config.vocab);
                std::copy_n(table + std::size_t(token) * hidden, hidden,
                            x.data() + (std::size_t(b) * seqLen + pos) * hidden);
            }
        }
    } else {
        x.assign(input.begin(), input.end());
    }

    MicroBatchStash stash;
    if (!st.spare.empty()) {
        stash = std::move(st.spare.back());
        st.spare.pop_back();
    }
    stash.rows = rows;
    stash.layers.resize(st.layers.size());
    for (std::size_t l = 0; l < st.layers.size(); ++l) {
        if (Status s = layerForward(st.dims, rows.count, st.layers[l], x, stash.layers[l], pacedTp,
                                    st.scratch);
            !s)
            return s.error();
    }

    ForwardOutput out;
    if (m_shard.hasHead) {
        HeadStash &h = stash.head;
        h.x = std::move(x);
        h.invRms.resize(tokens);
        h.normed.resize(h.x.size());
        rmsNormForward(h.x.data(), st.finalNorm->value.data(), tokens, std::size_t(hidden),
                       h.normed.data(), h.invRms.data());
        const int vocab = m_config.vocab;
        h.dLogits.resize(tokens * std::size_t(vocab));
        gemm(Transpose::No, Transpose::Yes, int(tokens), vocab, hidden, h.normed.data(), hidden,
             st.head->value.data(), hidden, 0.0f, h.dLogits.data(), vocab);
        std::vector<int> targets(tokens);
        for (int b = 0; b < rows.count; ++b) {
            for (int pos = 0; pos < seqLen; ++pos)
                targets[std::size_t(b) * seqLen + pos]
                    = syntheticToken(m_setup.seed, rows.first + b, pos + 1, vocab);
        }
        const double globalTokens = double(m_config.tokens(m_setup.globalBatch));
        out.lossContribution = softmaxCrossEntropy(h.dLogits.data(), targets.data(), tokens,
                                                   std::size_t(vocab), float(1.0 / globalTokens))
                               / globalTokens;
    } else {
        out.activations = std::move(x);
    }
    st.inFlight.emplace(microBatch, std::move(stash));
    return out;
}

Result<std::vector<float>> ModelShard::backward(int microBatch, std::span<const float> outputGrad,
                                                TpComm &tp)
{
    ComputePace pace;
    PacedTpComm pacedTp(tp, pace);
    ShardState &st = *m_state;
    auto found = st.inFlight.find(microBatch);
    if (found == st.inFlight.end())
        return callerError("backward of micro-batch " + std::to_string(microBatch)
                           + ", which has no forward awaiting it");
    const MicroBatchStash &stash = found->second;
    const int hidden = m_config.hidden;
    const auto tokens = std::size_t(m_config.tokens(stash.rows.count));
    const std::size_t expected = m_shard.hasHead ? 0 : tokens * std::size_t(hidden);
    if (outputGrad.size() != expected)
        return callerError("backward of micro-batch " + std::to_string(microBatch) + " got "
                           + std::to_string(outputGrad.size()) + " gradient values; expected "
                           + std::to_string(expected));

    std::vector<float> dx;
    if (m_shard.hasHead) {
        const HeadStash &h = stash.head;
        const int vocab = m_config.vocab;
        gemm(Transpose::Yes, Transpose::No, vocab, hidden, int(tokens), h.dLogits.data(), vocab,
             h.normed.data(), hidden, 1.0f, st.head->grad.data(), hidden);
        std::vector<float> dNormed(tokens * std::size_t(hidden));
        gemm(Transpose::No, Transpose::No, int(tokens), hidden, vocab, h.dLogits.data(), vocab,
             st.head->value.data(), hidden, 0.0f, dNormed.data(), hidden);
        dx.resize(dNormed.size());
        rmsNormBackward(dNormed.data(), h.x.data(), h.invRms.data(), st.finalNorm->value.data(),
                        tokens, std::size_t(hidden), dx.data(), st.finalNorm->grad.data());
    } else {
        dx.assign(outputGrad.begin(), outputGrad.end());
    }

    for (std::size_t l = st.layers.size(); l-- > 0;) {
        if (Status s = layerBackward(st.dims, stash.rows.count, st.layers[l], dx, stash.layers[l],
                                     pacedTp, st.scratch);
            !s)
            return s.error();
    }

    if (m_shard.hasEmbedding) {
        float *grad = st.embedding->grad.data();
        const int seqLen = m_config.seqLen;
        for (int b = 0; b < stash.rows.count; ++b) {
            for (int pos = 0; pos < seqLen; ++pos) {
                const int token
                    = syntheticToken(m_setup.seed, stash.rows.first + b, pos, m_config.vocab);
                const float *row = dx.data() + (std::size_t(b) * seqLen + pos) * hidden;
                float *target = grad + std::size_t(token) * hidden;
                for (int i = 0; i < hidden; ++i)
                    target[i] += row[i];
            }
        }
        dx.clear();
    }
    st.spare.push_back(std::move(found->second));
    st.inFlight.erase(found);
    return dx;
}

Parameter *ModelShard::findParameter(std::string_view name)
{
    for (Parameter &p : m_params) {
        if (p.tensor.name == name)
            return &p;
    }
    return nullptr;
}

const Parameter *ModelShard::findParameter(std::string_view name) const
{
    return const_cast<ModelShard *>(this)->findParameter(name);
}

std::size_t ModelShard::bytesHeld() const
{
    std::size_t floats = 0;
    for (const Parameter &p : m_params)
        floats += p.value.size() * 4; // value, gradient, two moments
    const auto capacities = [](const auto &...v) { return (v.capacity() + ...); };
    const auto stashFloats = [&](const MicroBatchStash &stash) {
        std::size_t total = 0;
        for (const LayerStash &l : stash.layers)
            total += capacities(l.x, l.invRms1, l.normed1, l.q, l.k, l.v, l.attn, l.x1, l.invRms2,
                                l.normed2, l.gate, l.up);
        const HeadStash &h = stash.head;
        return total + capacities(h.x, h.invRms, h.normed, h.dLogits);
    };
    for (const auto &[id, stash] : m_state->inFlight)
        floats += stashFloats(stash);
    for (const MicroBatchStash &stash : m_state->spare)
        floats += stashFloats(stash);
    return floats * sizeof(float);
}

int ModelShard::microBatchesInFlight() const
{
    return int(m_state->inFlight.size());
}

} // namespace hetplan::runtime
