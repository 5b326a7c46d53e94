#pragma once

#include <string>

namespace hetplan {

// The feed-forward block: SwiGLU (Llama: three H×F matrices) or GELU (GPT-3: two).
enum class MlpKind { SwiGlu, Gelu };

// A decoder-only transformer, as the model file (hetplan.model/1) describes it.
struct ModelSpec
{
    std::string name;
    int layers = 0;
    int hidden = 0;
    int ffnHidden = 0;
    int heads = 0;
    int kvHeads = 0; // = heads without grouped-query attention
    int vocab = 0;
    int maxSeqLen = 0;
    MlpKind mlp = MlpKind::SwiGlu;

    bool operator==(const ModelSpec &) const = default;

    int headDim() const { return hidden / heads; }
    // Weights of one transformer layer: attention (Q, O: H×H; K, V: H×(kv·head_dim)),
    // MLP (3 or 2 matrices of H×F), two RMSNorm/LayerNorm vectors.
    double paramsPerLayer() const;
    // Token embedding (V×H); the output head is counted separately (untied, as in Llama).
    double embeddingParams() const { return double(vocab) * hidden; }
    double headParams() const { return double(vocab) * hidden + hidden; } // + final norm
    double totalParams() const
    {
        return layers * paramsPerLayer() + embeddingParams() + headParams();
    }
};

inline double ModelSpec::paramsPerLayer() const
{
    const double h = hidden;
    const double kv = double(kvHeads) * headDim();
    const double attention = 2 * h * h + 2 * h * kv;
    const double mlpMatrices = mlp == MlpKind::SwiGlu ? 3.0 : 2.0;
    return attention + mlpMatrices * h * ffnHidden + 2 * h;
}

} // namespace hetplan
