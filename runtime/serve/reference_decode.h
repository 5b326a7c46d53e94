#pragma once

// The yardstick of every serving run: one process, the whole model, greedy decoding that
// recomputes the whole prefix for every token with training's layer forward (no KV cache,
// runtime/model/transformer_layer.h). A served sequence must equal it token for token, and its
// logits must agree to the tolerance tst_serve states.

#include "core/base/result.h"
#include "runtime/model/model_config.h"
#include "runtime/serve/weight_source.h"

#include <span>
#include <vector>

namespace hetplan::runtime {

struct ReferenceDecode
{
    std::vector<int> tokens;                // the `outputTokens` generated tokens
    std::vector<std::vector<float>> logits; // per generated token, the logits it was picked from
};

Result<ReferenceDecode> referenceGreedyDecode(const ModelConfig &config,
                                              const WeightSource &weights,
                                              std::span<const int> prompt, int outputTokens);

} // namespace hetplan::runtime
