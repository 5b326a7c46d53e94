#pragma once

#include "runtime/model/model_config.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hetplan::runtime {

// The model's parameters: stable names, full-tensor layouts and how tensor parallelism cuts them.
//
// Every full tensor is a row-major matrix [rows × cols] (vectors are [1 × n]). Notation: H hidden,
// F ffn_hidden, V vocab, d head dimension, Q = heads·d (= H), KV = kv_heads·d, L layers.
//
//   name                 rows  cols  TP cut  role
//   embedding            V     H     -       row v is token v's input vector
//   layer.<l>.attn_norm  1     H     -       RMSNorm gain before attention
//   layer.<l>.attn.q     Q     H     rows    query projection, out × in (q = x · qᵀ); rows of
//                                            head h are [h·d, (h+1)·d)
//   layer.<l>.attn.k     KV    H     rows    key projection, out × in, grouped by KV head
//   layer.<l>.attn.v     KV    H     rows    value projection, out × in, grouped by KV head
//   layer.<l>.attn.o     Q     H     rows    output projection, in × out (y = a · o): row-parallel
//   layer.<l>.mlp_norm   1     H     -       RMSNorm gain before the MLP
//   layer.<l>.mlp.gate   F     H     rows    SwiGLU only: gate projection, out × in
//   layer.<l>.mlp.up     F     H     rows    up projection, out × in
//   layer.<l>.mlp.down   F     H     rows    down projection, in × out (y = h · down): row-parallel
//   final_norm           1     H     -       RMSNorm gain after the last layer
//   head                 V     H     -       output head, out × in (logits = x · headᵀ), untied
//
// Layers are numbered globally (0 … L-1), whatever stage holds them. The layouts are chosen so
// that every TP-cut tensor is cut along its rows only: TP index t of T holds the contiguous element
// range [t·n/T, (t+1)·n/T) of the flattened full tensor (n = rows·cols). That makes a shard's slice
// one range, and a finer cut (T' a multiple of T) nests inside a coarser one, which the gradient
// slice groups rely on. Megatron-LM's split: q/k/v and gate/up are column-parallel (their output
// features, by heads / FFN columns), o and down row-parallel (their input features); one
// GQA group (heads/kv_heads query heads and their KV head) always lands on one TP rank.
//
// Replicated tensors ("-"): every rank of a TP group holds the whole
// tensor and, after a backward, the same gradient.
enum class ParamKind {
    Embedding,
    AttnNorm,
    AttnQ,
    AttnK,
    AttnV,
    AttnO,
    MlpNorm,
    MlpGate,
    MlpUp,
    MlpDown,
    FinalNorm,
    Head,
};

// The member of a layer's set of per-tensor slots (the CPU shard's parameters, the GPU shard's
// weights) that holds `kind`; any struct with the members q, k, v, o, attnNorm, mlpNorm, gate,
// up and down. `kind` must be a per-layer kind.
template<typename LayerSlots>
auto &layerSlot(LayerSlots &l, ParamKind kind)
{
    switch (kind) {
    case ParamKind::AttnQ:
        return l.q;
    case ParamKind::AttnK:
        return l.k;
    case ParamKind::AttnV:
        return l.v;
    case ParamKind::AttnO:
        return l.o;
    case ParamKind::MlpNorm:
        return l.mlpNorm;
    case ParamKind::MlpGate:
        return l.gate;
    case ParamKind::MlpUp:
        return l.up;
    case ParamKind::MlpDown:
        return l.down;
    default:
        return l.attnNorm; // the only other per-layer kind
    }
}

enum class TpCut { Replicated, Rows };

// One full tensor of the model.
struct TensorLayout
{
    std::string name; // e.g. "layer.7.attn.q"
    ParamKind kind = ParamKind::Embedding;
    int layer = -1; // -1 for embedding, final_norm, head
    std::int64_t rows = 0;
    std::int64_t cols = 0;
    TpCut cut = TpCut::Replicated;

    std::int64_t elements() const { return rows * cols; }
};

// A half-open range of element indices into a flattened full tensor.
struct ElementRange
{
    std::int64_t begin = 0;
    std::int64_t end = 0;

    std::int64_t size() const { return end - begin; }
    bool operator==(const ElementRange &) const = default;
};

std::string paramName(ParamKind kind, int layer = -1);

// The full tensors of one layer, in the order listed above (gate only for SwiGLU).
std::vector<TensorLayout> layerTensors(const ModelConfig &config, int layer);
// All tensors of the model: embedding, layer 0 … L-1, final_norm, head.
std::vector<TensorLayout> modelTensors(const ModelConfig &config);
// The tensors a shard holds (in the same order).
std::vector<TensorLayout> shardTensors(const ModelConfig &config, const ShardSpec &shard);
std::optional<TensorLayout> findTensor(const ModelConfig &config, std::string_view name);

// The elements of `tensor` held by TP index `tpIndex` of `tpDegree` (the whole tensor when it is
// replicated). `tpDegree` must divide the tensor's rows (validateShard guarantees it).
ElementRange tpSlice(const TensorLayout &tensor, int tpIndex, int tpDegree);

} // namespace hetplan::runtime
