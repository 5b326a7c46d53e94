// Serving on the runtime's model (runtime/serve; OpenBLAS, one thread, one rank): prefill
// tokens/s of one prompt and decode tokens/s of a batch at a context of one prompt, with the KV
// cache. PyTorch is not compared: the machines this runs on have no `import torch` (Debian's
// python3-torch is not installed), and the bench prints so rather than guess.
#include "core/io/catalog_json.h"
#include "runtime/model/model_shard.h"
#include "runtime/serve/serve_shard.h"
#include "tests/bench/bench_util.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace hetplan::bench {
namespace {

using namespace hetplan::runtime;

// Wall seconds (median) and CPU seconds (mean over 5 calls) per call of `step`.
std::pair<double, double> timed(const std::function<void()> &step)
{
    const double wallS = medianSecondsPerCall(step, 3);
    const int calls = 5;
    const std::clock_t cpuStart = std::clock();
    for (int i = 0; i < calls; ++i)
        step();
    return {wallS, double(std::clock() - cpuStart) / CLOCKS_PER_SEC / calls};
}

void benchServing(const char *model, int scale, int promptTokens, int batch)
{
    const ModelSpec *spec = builtinModelCatalog().find(model);
    const ModelConfig c = orExit(scaledModelConfig(*spec, 4096, scale));
    ServeShard shard = orExit(ServeShard::create(c, wholeModel(c), seededWeights(c.layers, 1),
                                                 {batch, promptTokens + 1}));
    SoloTpComm solo;
    std::vector<float> output;
    const auto prefill = [&](int slot) {
        std::vector<TokenRow> rows;
        for (int p = 0; p < promptTokens; ++p)
            rows.push_back({slot, p, (p * 7 + slot) % c.vocab});
        const int last = promptTokens - 1;
        orExit(shard.forward(rows, {}, std::span<const int>(&last, 1), solo, output));
    };
    for (int slot = 0; slot < batch; ++slot)
        prefill(slot);
    const auto [prefillWallS, prefillCpuS] = timed([&] { prefill(0); });

    // One decode step of the whole batch at position promptTokens (rewritten each call).
    std::vector<TokenRow> rows;
    std::vector<int> logitRows;
    for (int slot = 0; slot < batch; ++slot) {
        rows.push_back({slot, promptTokens, slot % c.vocab});
        logitRows.push_back(slot);
    }
    const auto [decodeWallS, decodeCpuS]
        = timed([&] { orExit(shard.forward(rows, {}, logitRows, solo, output)); });
    std::printf("  %s --scale %d (hidden %d, %d layers, vocabulary %d), weights + KV cache "
                "%.1f MiB, of which KV cache %.1f MiB:\n"
                "    prefill %d tokens: %.1f ms wall, %.1f ms CPU: %.0f tokens/s (CPU time)\n"
                "    decode, batch %d at context %d: %.2f ms wall, %.2f ms CPU per step: "
                "%.0f tokens/s (CPU time), %.2f ms per token per sequence\n",
                model, scale, c.hidden, c.layers, c.vocab, double(shard.bytesHeld()) / (1 << 20),
                double(shard.cache().bytes()) / (1 << 20), promptTokens, prefillWallS * 1e3,
                prefillCpuS * 1e3, promptTokens / prefillCpuS, batch, promptTokens,
                decodeWallS * 1e3, decodeCpuS * 1e3, batch / decodeCpuS, decodeCpuS * 1e3);
}

void benchServe()
{
    setBlasThreads(1);
    std::printf("serving on the runtime model (OpenBLAS, 1 thread, one rank); PyTorch: not "
                "compared (no `import torch` here)\n");
    benchServing("llama2-7b", 16, 128, 1);
    benchServing("llama2-7b", 16, 128, 8);
}

const Register kServe("serve", benchServe);

} // namespace
} // namespace hetplan::bench
