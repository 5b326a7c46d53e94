#include "runtime/serve/reference_decode.h"

#include "runtime/model/blas_gemm.h"
#include "runtime/model/layer_kernels.h"
#include "runtime/model/model_shard.h"
#include "runtime/model/transformer_layer.h"
#include "runtime/serve/sampling.h"

#include <algorithm>
#include <string>

namespace hetplan::runtime {

Result<ReferenceDecode> referenceGreedyDecode(const ModelConfig &config,
                                              const WeightSource &weights,
                                              std::span<const int> prompt, int outputTokens)
{
    if (prompt.empty() || outputTokens < 1)
        return badInput("a reference decode needs a prompt and at least one output token");
    auto made = ModelShard::create(config, wholeModel(config), TrainingSetup{});
    if (!made)
        return made.error();
    ModelShard &model = *made;
    std::vector<LayerParams> layers(std::size_t(config.layers));
    const Parameter *embedding = nullptr;
    const Parameter *finalNorm = nullptr;
    const Parameter *head = nullptr;
    for (Parameter &p : model.parameters()) {
        if (Status s = weights(p.tensor, p.slice, p.value); !s)
            return s.error();
        if (p.tensor.kind == ParamKind::Embedding)
            embedding = &p;
        else if (p.tensor.kind == ParamKind::FinalNorm)
            finalNorm = &p;
        else if (p.tensor.kind == ParamKind::Head)
            head = &p;
        else
            layerSlot(layers[std::size_t(p.tensor.layer)], p.tensor.kind) = &p;
    }

    const int hidden = config.hidden;
    std::vector<int> sequence(prompt.begin(), prompt.end());
    std::vector<LayerStash> stashes(layers.size());
    LayerScratch scratch;
    SoloTpComm solo;
    ReferenceDecode result;
    for (int t = 0; t < outputTokens; ++t) {
        const int n = int(sequence.size());
        const RotaryTable rotary(n, config.headDim());
        LayerDims dims = LayerDims::of(config, 1);
        dims.attention.seqLen = n;
        dims.rotary = &rotary;
        std::vector<float> x(std::size_t(n) * hidden);
        for (int pos = 0; pos < n; ++pos)
            std::copy_n(embedding->value.data() + std::size_t(sequence[std::size_t(pos)]) * hidden,
                        hidden, x.data() + std::size_t(pos) * hidden);
        for (std::size_t l = 0; l < layers.size(); ++l)
            if (Status s = layerForward(dims, 1, layers[l], x, stashes[l], solo, scratch); !s)
                return s.error();
        std::vector<float> normed(static_cast<std::size_t>(hidden));
        float invRms = 0;
        rmsNormForward(x.data() + std::size_t(n - 1) * hidden, finalNorm->value.data(), 1,
                       std::size_t(hidden), normed.data(), &invRms);
        std::vector<float> logits(std::size_t(config.vocab));
        gemm(Transpose::No, Transpose::Yes, 1, config.vocab, hidden, normed.data(), hidden,
             head->value.data(), hidden, 0.0f, logits.data(), config.vocab);
        const int token = greedyToken(logits);
        result.tokens.push_back(token);
        result.logits.push_back(std::move(logits));
        sequence.push_back(token);
    }
    return result;
}

} // namespace hetplan::runtime
