// The runtime's model on CPUs (OpenBLAS, one thread): one forward + backward of one transformer
// layer for one sequence, at the --scale a laptop rehearsal uses, and one whole-model step.
#include "core/io/catalog_json.h"
#include "runtime/model/model_shard.h"
#include "tests/bench/bench_util.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace hetplan::bench {
namespace {

using namespace hetplan::runtime;

// Forward FLOPs of one layer for `tokens` tokens: the projections (2·tokens·in·out each) and the
// attention's two seqLen² products per head (counted whole, though the causal half is zero).
double layerForwardFlops(const ModelConfig &c, int tokens)
{
    const double h = c.hidden;
    const double mlpMatrices = c.mlp == MlpKind::SwiGlu ? 3 : 2;
    const double projections
        = 2.0 * tokens * h * (2 * h + 2 * c.kvDim() + mlpMatrices * c.ffnHidden);
    const double attention = 4.0 * tokens * c.seqLen * h;
    return projections + attention;
}

void benchLayer(const char *model, int scale)
{
    const ModelSpec *spec = builtinModelCatalog().find(model);
    const ModelConfig c = orExit(scaledModelConfig(*spec, 4096, scale));
    ModelShard layer = orExit(ModelShard::create(c, {0, 1, 0, 1, false, false}, {1, 1, {}}));
    const std::vector<float> input(std::size_t(c.tokens(1) * c.hidden), 0.1f);
    SoloTpComm solo;
    const auto step = [&] {
        ForwardOutput out = orExit(layer.forward(0, {0, 1}, input, solo));
        orExit(layer.backward(0, out.activations, solo));
    };
    const double seconds = medianSecondsPerCall(step);
    // CPU time as well: on a shared machine the wall clock also counts other processes' turns.
    const int calls = 10;
    const std::clock_t cpuStart = std::clock();
    for (int i = 0; i < calls; ++i)
        step();
    const double cpuSeconds = double(std::clock() - cpuStart) / CLOCKS_PER_SEC / calls;
    // Backward does twice the forward's GEMM work, plus the recomputed attention scores.
    const double flops = 3 * layerForwardFlops(c, c.seqLen);
    std::printf("  %s --scale %d (hidden %d, %d heads of %d, FFN %d, seq %d): one layer fwd+bwd, "
                "1 sequence: %.1f ms wall, %.1f ms CPU (%.1f GFLOP/s of CPU time)\n",
                model, scale, c.hidden, c.heads, c.headDim(), c.ffnHidden, c.seqLen, seconds * 1e3,
                cpuSeconds * 1e3, flops / cpuSeconds * 1e-9);
}

void benchModel()
{
    setBlasThreads(1);
    std::printf("runtime model (OpenBLAS, 1 thread):\n");
    benchLayer("llama2-13b", 16);
    benchLayer("llama2-70b", 32);
    benchLayer("gpt3-1.3b", 8);
}

const Register kModel("model", benchModel);

} // namespace
} // namespace hetplan::bench
