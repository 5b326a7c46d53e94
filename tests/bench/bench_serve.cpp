// Serving on the runtime's model (runtime/serve; OpenBLAS, one thread, one rank): prefill
// tokens/s of one prompt and decode tokens/s of a batch at a context of one prompt, with the KV
// cache, beside the serving model's per-token decode time for the same model and scale on this
// machine's CPU (docs/cost-models.md, "Serving, request by request"): the CPU as
// `hetplan-cli import` of a one-rank probe types it (its GEMMs at the model's shapes on one BLAS
// thread and its triad bandwidth), then core/serving/serving_phases. PyTorch is not compared:
// the runtime model has no PyTorch twin to time (docs/runtime.md, "Serving runs").
#include "core/cost/cost_model.h"
#include "core/import/import.h"
#include "core/io/catalog_json.h"
#include "core/io/probe_file.h"
#include "core/model/topology.h"
#include "core/serving/serving_phases.h"
#include "runtime/model/model_shard.h"
#include "runtime/probe/cpu_probe.h"
#include "runtime/probe/probe_shapes.h"
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

// This machine's CPU as one device, typed from a one-rank probe by the import.
Topology cpuTopology(const ModelSpec &model, int promptTokens)
{
    Probe file;
    file.settings = {model.name, 1, promptTokens, 1, 3, true};
    ProbedHost host;
    host.name = "bench#0";
    host.cpuModel = probe::cpuModel();
    host.cpuCores = probe::cpuCores();
    host.blasThreads = 1;
    host.cpuGemm = probe::cpuGemm(probe::layerGemmShapes(model, 1, promptTokens, 1), 3, 1);
    host.cpuMemory = probe::cpuMemory(3, true, 64);
    host.noGpuReason = "bench";
    file.hosts.push_back(host);
    const ImportResult imported
        = orExit(importMeasurements({{"bench.probe.json", writeProbe(file)}}));
    return orExit(Topology::build(imported.cluster, builtinGpuCatalog()));
}

// The serving model's decode time per token at `batch` sequences for the model as scaled in `c`
// on one CPU rank, at a context of `promptTokens`.
double predictedDecodeS(const Topology &topology, const ModelSpec &spec, const ModelConfig &c,
                        int promptTokens, int batch)
{
    Problem problem{topology, spec, {}};
    problem.model.hidden = c.hidden;
    problem.model.ffnHidden = c.ffnHidden;
    problem.model.vocab = c.vocab;
    InferWorkload &w = problem.workload.infer;
    problem.workload.mode = Mode::Infer;
    w.promptLen = promptTokens;
    w.outputLen = 16;
    w.batch = batch;
    w.precision = wirePrecision(BackendKind::Gloo);
    Plan plan;
    plan.workload = problem.workload;
    Stage whole;
    whole.gpus = {0};
    whole.layerEnd = c.layers;
    plan.pipelines = {{batch, 1, {whole}}};
    const ServingPhases phases = servingPhases(problem, CostModel(), plan);
    const ReplicaPhases &replica = phases.replicas.at(0);
    return replica.decodeSPerToken.empty() ? 0.0 : replica.decodeSPerToken.back();
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
    const Topology topology = cpuTopology(*spec, promptTokens);
    std::printf("    decode step predicted by the serving model on this CPU (%s, as imported "
                "from a probe): %.2f ms, measured %.2f ms wall\n",
                topology.gpuType(0).name.c_str(),
                predictedDecodeS(topology, *spec, c, promptTokens, batch) * 1e3, decodeWallS * 1e3);
}

void benchServe()
{
    setBlasThreads(1);
    std::printf("serving on the runtime model (OpenBLAS, 1 thread, one rank); PyTorch: not "
                "compared (no PyTorch twin of the runtime model)\n");
    benchServing("llama2-7b", 16, 128, 1);
    benchServing("llama2-7b", 16, 128, 8);
}

const Register kServe("serve", benchServe);

} // namespace
} // namespace hetplan::bench
