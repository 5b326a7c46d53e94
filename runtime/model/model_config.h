#pragma once

#include "core/base/result.h"
#include "core/model/model_spec.h"
#include "core/model/workload.h"

#include <cstdint>
#include <string>

namespace hetplan::runtime {

// The transformer the runtime trains: a model file's shape, optionally shrunk by `--scale K`.
//
// Scaling (issue 13): K divides the head dimension, the FFN width, the vocabulary and the sequence
// length, and keeps the layers, the heads and the KV heads, so a plan's stages, TP degrees and
// micro-batches still apply. hidden = heads × headDim / K. K must divide the head dimension (a
// fractional head does not exist); the FFN width, vocabulary and sequence length are divided
// rounding down (at least 1). Llama-2 13B at K = 16: hidden 320 (40 heads of 8), FFN 864,
// vocabulary 2000, sequence 4096 → 256.
struct ModelConfig
{
    std::string name;
    int layers = 0;
    int hidden = 0;
    int ffnHidden = 0;
    int heads = 0;
    int kvHeads = 0;
    int vocab = 0;
    int seqLen = 0; // tokens per sample the model is trained on (inputs; targets are shifted by 1)
    MlpKind mlp = MlpKind::SwiGlu;
    int scale = 1; // the K this config was made with, for messages and measurement files

    bool operator==(const ModelConfig &) const = default;

    int headDim() const { return hidden / heads; }
    int kvDim() const { return kvHeads * headDim(); }
    std::int64_t tokens(int samples) const { return std::int64_t(samples) * seqLen; }
};

// `seqLen` is the workload's sequence length (the plan's), before scaling. Refuses (BadInput,
// naming `--scale` or the model field and what would be valid) what cannot be built.
Result<ModelConfig> scaledModelConfig(const ModelSpec &spec, int seqLen, int scale);

// What one rank holds: layers [layerBegin, layerEnd), TP index tpIndex of tpDegree, and whether
// it holds the embedding (the first stage) and the final norm + output head (the last stage).
// Inside a TP group the embedding, norms, final norm and head are replicated; the attention and
// MLP matrices are cut as model_tensors.h documents.
struct ShardSpec
{
    int layerBegin = 0;
    int layerEnd = 0;
    int tpIndex = 0;
    int tpDegree = 1;
    bool hasEmbedding = false;
    bool hasHead = false;

    bool operator==(const ShardSpec &) const = default;
};

// The whole model in one shard (T = 1): what the single-process reference run uses.
ShardSpec wholeModel(const ModelConfig &config);

// Refuses a shard the model cannot be cut into: a TP degree that does not divide `heads`,
// `kv_heads` or `ffn_hidden` (the message names the field and lists the degrees that would work),
// a layer range outside [0, layers), a TP index outside [0, tpDegree).
Status validateShard(const ModelConfig &config, const ShardSpec &shard);

// Adam (Kingma & Ba 2015), fp32, bias-corrected, no weight decay. Defaults: the paper's betas and
// epsilon; lr 1e-3 so that a few iterations visibly lower the loss on the synthetic data.
struct AdamOptions
{
    float learningRate = 1e-3f;
    float beta1 = 0.9f;
    float beta2 = 0.999f;
    float epsilon = 1e-8f;

    bool operator==(const AdamOptions &) const = default;
};

// Everything besides the model that fixes a training run: every rank of a job gets the same.
struct TrainingSetup
{
    std::uint64_t seed = 0; // weights and token data (model_init.h)
    int globalBatch = 1;    // samples (sequences) per iteration, over all pipelines
    AdamOptions adam;
    // The workload's optimizer. Sgd is plain w ← w − lr·g with adam.learningRate: unlike Adam's
    // update it is proportional to the gradient, so comparing weights after SGD also catches a
    // gradient scaled wrongly as a whole (Adam's per-element normalisation hides that).
    Optimizer optimizer = Optimizer::Adam;
};

// A contiguous range of global sample indices [first, first + count) in [0, globalBatch): the
// rows a micro-batch of this rank computes. (The program's SampleRange, runtime/program/program.h,
// is the same idea as [begin, end); the two names keep them apart in one translation unit.)
struct SampleSpan
{
    int first = 0;
    int count = 0;

    bool operator==(const SampleSpan &) const = default;
};

} // namespace hetplan::runtime
