#include "runtime/probe/probe_shapes.h"

#include <algorithm>

namespace hetplan::runtime::probe {

std::vector<GemmShape> layerGemmShapes(const ModelSpec &model, int microBatch, int seqLen, int tp)
{
    const int tokens = microBatch * seqLen;
    const int kvWidth = model.kvHeads * model.headDim();
    const int mlpInputs = model.mlp == MlpKind::SwiGlu ? 2 : 1;
    // A shard never gets less than one column: TP beyond the heads is the planner's concern.
    const auto shard = [tp](int width) { return std::max(1, width / tp); };
    // The output types are the majority's: q and k are fp32 beside a bf16 v, gate and up bf16.
    return {
        {"qkv", tokens, shard(model.hidden + 2 * kvWidth), model.hidden, true, false},
        {"attn_out", tokens, model.hidden, shard(model.hidden), false, false},
        {"mlp_up", tokens, shard(mlpInputs * model.ffnHidden), model.hidden, true, true},
        {"mlp_down", tokens, model.hidden, shard(model.ffnHidden), false, false},
    };
}

std::vector<double> messageSizesBytes(bool quick)
{
    if (quick)
        return {4, 4096, 1 << 20, 16 << 20};
    std::vector<double> sizes;
    for (long long bytes = 4; bytes <= 64LL << 20; bytes *= 16)
        sizes.push_back(double(bytes));
    return sizes;
}

} // namespace hetplan::runtime::probe
