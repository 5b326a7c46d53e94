#include "runtime/model/model_config.h"

#include <algorithm>
#include <string>
#include <vector>

namespace hetplan::runtime {

namespace {

std::string divisorsText(const std::vector<int> &values)
{
    std::string text;
    for (int v : values)
        text += (text.empty() ? "" : ", ") + std::to_string(v);
    return text;
}

std::vector<int> commonDivisors(std::initializer_list<int> values)
{
    std::vector<int> result;
    const int limit = std::min(values);
    for (int d = 1; d <= limit; ++d) {
        if (std::all_of(values.begin(), values.end(), [d](int v) { return v % d == 0; }))
            result.push_back(d);
    }
    return result;
}

} // namespace

Result<ModelConfig> scaledModelConfig(const ModelSpec &spec, int seqLen, int scale)
{
    const std::string model = "model '" + spec.name + "'";
    const auto positive = [&](const char *field, int value) -> Status {
        if (value > 0)
            return okStatus();
        return badInput(model + ": " + field + " is " + std::to_string(value)
                        + "; it must be a positive integer");
    };
    for (auto [field, value] : {std::pair{"layers", spec.layers},
                                {"hidden", spec.hidden},
                                {"ffn_hidden", spec.ffnHidden},
                                {"heads", spec.heads},
                                {"kv_heads", spec.kvHeads},
                                {"vocab", spec.vocab}}) {
        if (Status s = positive(field, value); !s)
            return s.error();
    }
    if (spec.hidden % spec.heads != 0)
        return badInput(model + ": hidden " + std::to_string(spec.hidden)
                        + " is not a multiple of heads " + std::to_string(spec.heads));
    if (spec.heads % spec.kvHeads != 0)
        return badInput(model + ": kv_heads " + std::to_string(spec.kvHeads) + " must divide heads "
                        + std::to_string(spec.heads)
                        + " (each KV head serves the same number of query heads)");
    if (seqLen <= 0)
        return badInput("sequence length is " + std::to_string(seqLen)
                        + "; it must be a positive integer");
    const int headDim = spec.headDim();
    if (scale <= 0 || headDim % scale != 0)
        return badInput("--scale " + std::to_string(scale) + " does not divide the head dimension "
                        + std::to_string(headDim) + " of " + model
                        + "; valid scales: " + divisorsText(commonDivisors({headDim})));

    ModelConfig config;
    config.name = spec.name;
    config.layers = spec.layers;
    config.heads = spec.heads;
    config.kvHeads = spec.kvHeads;
    config.hidden = spec.heads * (headDim / scale);
    config.ffnHidden = std::max(1, spec.ffnHidden / scale);
    config.vocab = std::max(1, spec.vocab / scale);
    config.seqLen = std::max(1, seqLen / scale);
    config.mlp = spec.mlp;
    config.scale = scale;
    return config;
}

ShardSpec wholeModel(const ModelConfig &config)
{
    return {0, config.layers, 0, 1, true, true};
}

Status validateShard(const ModelConfig &config, const ShardSpec &shard)
{
    const std::string model = "model '" + config.name + "'";
    const int t = shard.tpDegree;
    if (t <= 0)
        return badInput("tensor-parallel degree " + std::to_string(t) + " must be positive");
    const std::string valid
        = "; TP degrees that divide heads, kv_heads and ffn_hidden"
          + std::string(config.scale > 1 ? " at this --scale" : "") + ": "
          + divisorsText(commonDivisors({config.heads, config.kvHeads, config.ffnHidden}));
    for (auto [field, value] : {std::pair{"heads", config.heads},
                                {"kv_heads", config.kvHeads},
                                {"ffn_hidden", config.ffnHidden}}) {
        if (value % t != 0)
            return badInput("tensor-parallel degree " + std::to_string(t) + " does not divide "
                            + field + " = " + std::to_string(value) + " of " + model + valid);
    }
    if (shard.tpIndex < 0 || shard.tpIndex >= t)
        return badInput("TP index " + std::to_string(shard.tpIndex) + " is outside [0, "
                        + std::to_string(t) + ")");
    if (shard.layerBegin < 0 || shard.layerEnd > config.layers || shard.layerBegin > shard.layerEnd)
        return badInput("layer range [" + std::to_string(shard.layerBegin) + ", "
                        + std::to_string(shard.layerEnd) + ") is not inside the "
                        + std::to_string(config.layers) + " layers of " + model);
    if (shard.layerBegin == shard.layerEnd && !shard.hasEmbedding && !shard.hasHead)
        return badInput("a shard must hold at least one layer, the embedding or the head");
    return okStatus();
}

} // namespace hetplan::runtime
