#include "runtime/model/model_tensors.h"

#include <cassert>

namespace hetplan::runtime {

namespace {

const char *suffix(ParamKind kind)
{
    switch (kind) {
    case ParamKind::Embedding:
        return "embedding";
    case ParamKind::AttnNorm:
        return "attn_norm";
    case ParamKind::AttnQ:
        return "attn.q";
    case ParamKind::AttnK:
        return "attn.k";
    case ParamKind::AttnV:
        return "attn.v";
    case ParamKind::AttnO:
        return "attn.o";
    case ParamKind::MlpNorm:
        return "mlp_norm";
    case ParamKind::MlpGate:
        return "mlp.gate";
    case ParamKind::MlpUp:
        return "mlp.up";
    case ParamKind::MlpDown:
        return "mlp.down";
    case ParamKind::FinalNorm:
        return "final_norm";
    case ParamKind::Head:
        return "head";
    }
    return "?";
}

TensorLayout tensor(ParamKind kind, int layer, std::int64_t rows, std::int64_t cols, TpCut cut)
{
    return {paramName(kind, layer), kind, layer, rows, cols, cut};
}

} // namespace

std::string paramName(ParamKind kind, int layer)
{
    if (layer < 0)
        return suffix(kind);
    return "layer." + std::to_string(layer) + "." + suffix(kind);
}

std::vector<TensorLayout> layerTensors(const ModelConfig &c, int l)
{
    const std::int64_t h = c.hidden;
    std::vector<TensorLayout> result{
        tensor(ParamKind::AttnNorm, l, 1, h, TpCut::Replicated),
        tensor(ParamKind::AttnQ, l, h, h, TpCut::Rows),
        tensor(ParamKind::AttnK, l, c.kvDim(), h, TpCut::Rows),
        tensor(ParamKind::AttnV, l, c.kvDim(), h, TpCut::Rows),
        tensor(ParamKind::AttnO, l, h, h, TpCut::Rows),
        tensor(ParamKind::MlpNorm, l, 1, h, TpCut::Replicated),
    };
    if (c.mlp == MlpKind::SwiGlu)
        result.push_back(tensor(ParamKind::MlpGate, l, c.ffnHidden, h, TpCut::Rows));
    result.push_back(tensor(ParamKind::MlpUp, l, c.ffnHidden, h, TpCut::Rows));
    result.push_back(tensor(ParamKind::MlpDown, l, c.ffnHidden, h, TpCut::Rows));
    return result;
}

std::vector<TensorLayout> shardTensors(const ModelConfig &c, const ShardSpec &shard)
{
    std::vector<TensorLayout> result;
    if (shard.hasEmbedding)
        result.push_back(tensor(ParamKind::Embedding, -1, c.vocab, c.hidden, TpCut::Replicated));
    for (int l = shard.layerBegin; l < shard.layerEnd; ++l) {
        for (TensorLayout &t : layerTensors(c, l))
            result.push_back(std::move(t));
    }
    if (shard.hasHead) {
        result.push_back(tensor(ParamKind::FinalNorm, -1, 1, c.hidden, TpCut::Replicated));
        result.push_back(tensor(ParamKind::Head, -1, c.vocab, c.hidden, TpCut::Replicated));
    }
    return result;
}

std::vector<TensorLayout> modelTensors(const ModelConfig &config)
{
    return shardTensors(config, wholeModel(config));
}

std::optional<TensorLayout> findTensor(const ModelConfig &config, std::string_view name)
{
    for (TensorLayout &t : modelTensors(config)) {
        if (t.name == name)
            return std::move(t);
    }
    return std::nullopt;
}

ElementRange tpSlice(const TensorLayout &t, int tpIndex, int tpDegree)
{
    if (t.cut == TpCut::Replicated)
        return {0, t.elements()};
    assert(tpDegree > 0 && t.rows % tpDegree == 0 && tpIndex >= 0 && tpIndex < tpDegree);
    const std::int64_t rowsPerSlice = t.rows / tpDegree;
    return {tpIndex * rowsPerSlice * t.cols, (tpIndex + 1) * rowsPerSlice * t.cols};
}

} // namespace hetplan::runtime
