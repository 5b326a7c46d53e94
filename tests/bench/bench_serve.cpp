// Serving on the runtime's model (runtime/serve; OpenBLAS, one thread, one rank): prefill
// tokens/s of one prompt and decode tokens/s of a batch at a context of one prompt, with the KV
// cache, beside the serving model's per-token decode time for the same model and scale on this
// machine's CPU (docs/cost-models.md, "Serving, request by request"): the CPU as
// `hetplan-cli import` of a one-rank probe types it (its GEMMs at the model's shapes on one BLAS
// thread and its triad bandwidth), then core/serving/serving_phases. Beside them, the same
// model's forward in PyTorch (bench_serve_torch.py: the same shapes, fp32, one thread) where a
// python3 imports torch (docs/runtime.md, "Serving runs").
#include "core/cost/cost_model.h"
#include "core/import/import.h"
#include "core/io/catalog_json.h"
#include "core/io/probe_file.h"
#include "core/model/topology.h"
#include "core/serving/serving_phases.h"
#include "runtime/model/model_shard.h"
#include "runtime/probe/cpu_probe.h"
#include "runtime/probe/probe_shapes.h"
#include "runtime/probe/probe_timing.h"
#include "runtime/serve/serve_shard.h"
#include "tests/bench/bench_util.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <optional>
#include <string>

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

// The output of a shell command (standard error dropped) and whether it exited 0.
std::pair<std::string, bool> commandOutput(const std::string &command)
{
    std::string text;
    FILE *pipe = popen((command + " 2>/dev/null").c_str(), "r");
    if (!pipe)
        return {text, false};
    char buffer[512];
    while (std::fgets(buffer, sizeof buffer, pipe))
        text += buffer;
    return {text, pclose(pipe) == 0};
}

// A python3 that imports torch: $HETPLAN_BENCH_PYTHON, the python3 on PATH, then Debian's
// /usr/bin/python3 (another python3 may come first on PATH without torch). nullopt: none does.
std::optional<std::string> torchPython()
{
    std::vector<std::string> candidates;
    if (const char *chosen = std::getenv("HETPLAN_BENCH_PYTHON"))
        candidates.emplace_back(chosen);
    candidates.emplace_back("python3");
    candidates.emplace_back("/usr/bin/python3");
    for (const std::string &python : candidates)
        if (commandOutput(python + " -c 'import torch'").second)
            return python;
    return std::nullopt;
}

// bench_serve_torch.py's figures ("name value" lines) for the model as scaled in `c`; empty
// when it failed.
std::map<std::string, std::string> torchFigures(const std::string &python, const ModelConfig &c,
                                                int promptTokens, int batch)
{
    std::string command = python;
    command += " " HETPLAN_SOURCE_DIR "/tests/bench/bench_serve_torch.py";
    for (const auto &[flag, value] : {std::pair{"--layers", c.layers},
                                      {"--hidden", c.hidden},
                                      {"--heads", c.heads},
                                      {"--kv-heads", c.kvHeads},
                                      {"--ffn", c.ffnHidden},
                                      {"--vocab", c.vocab},
                                      {"--prompt", promptTokens},
                                      {"--batch", batch},
                                      {"--threads", 1}}) {
        command += ' ';
        command += flag;
        command += ' ';
        command += std::to_string(value);
    }
    command += c.mlp == MlpKind::SwiGlu ? " --mlp swiglu" : " --mlp gelu";
    const auto [text, ok] = commandOutput(command);
    std::map<std::string, std::string> figures;
    if (!ok)
        return figures;
    std::size_t begin = 0;
    while (begin < text.size()) {
        const std::size_t end = std::min(text.find('\n', begin), text.size());
        const std::string line = text.substr(begin, end - begin);
        if (const std::size_t space = line.find(' '); space != std::string::npos)
            figures[line.substr(0, space)] = line.substr(space + 1);
        begin = end + 1;
    }
    return figures;
}

// The PyTorch column: the same prefill and decode step in PyTorch, or why it is skipped.
void printTorch(const std::optional<std::string> &python, const ModelConfig &c, int promptTokens,
                int batch)
{
    if (!python) {
        std::printf("    PyTorch: skipped: no python3 imports torch (Debian: python3-torch; or "
                    "set HETPLAN_BENCH_PYTHON)\n");
        return;
    }
    const auto figures = torchFigures(*python, c, promptTokens, batch);
    const auto seconds = [&](const char *name) {
        const auto it = figures.find(name);
        return it == figures.end() ? 0.0 : std::atof(it->second.c_str());
    };
    const double prefillCpuS = seconds("prefill_cpu_s");
    const double decodeCpuS = seconds("decode_cpu_s");
    if (prefillCpuS <= 0 || decodeCpuS <= 0) {
        std::printf("    PyTorch: skipped: %s tests/bench/bench_serve_torch.py failed\n",
                    python->c_str());
        return;
    }
    std::printf("    PyTorch %s (same shapes, fp32, 1 thread): prefill %.1f ms wall, %.1f ms CPU: "
                "%.0f tokens/s; decode step %.2f ms wall, %.2f ms CPU: %.0f tokens/s (CPU time)\n",
                figures.at("torch").c_str(), seconds("prefill_wall_s") * 1e3, prefillCpuS * 1e3,
                promptTokens / prefillCpuS, seconds("decode_wall_s") * 1e3, decodeCpuS * 1e3,
                batch / decodeCpuS);
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
    host.cpuGemm = probe::cpuGemm(probe::layerGemmShapes(model, 1, promptTokens, 1), 3, 1,
                                  probe::kRepetitionS);
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

void benchServing(const char *model, int scale, int promptTokens, int batch,
                  const std::optional<std::string> &python)
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
    printTorch(python, c, promptTokens, batch);
}

void benchServe()
{
    setBlasThreads(1);
    const std::optional<std::string> python = torchPython();
    std::printf("serving on the runtime model (OpenBLAS, 1 thread, one rank), beside PyTorch "
                "(%s)\n",
                python ? python->c_str() : "none: no python3 imports torch");
    benchServing("llama2-7b", 16, 128, 1, python);
    benchServing("llama2-7b", 16, 128, 8, python);
}

const Register kServe("serve", benchServe);

} // namespace
} // namespace hetplan::bench
