#include "app/cli/commands.h"
#include "app/cli/setup.h"
#include "core/io/catalog_json.h"

#include <cstdio>
#include <iostream>

namespace hetplan::cli {
namespace {

int listGpus(bool json)
{
    const std::vector<GpuType> &gpus = builtinGpuCatalog().all();
    if (json) {
        std::cout << gpuCatalogJson(gpus) << '\n';
        return 0;
    }
    std::printf("%-16s %8s %8s %10s %10s  %s\n", "GPU", "TFLOPS", "GiB", "mem GB/s", "$/hour",
                "intra link");
    for (const GpuType &g : gpus) {
        const std::string price
            = g.pricePerHourUsd ? std::to_string(*g.pricePerHourUsd).substr(0, 5) : "-";
        std::printf("%-16s %8.1f %8.0f %10.0f %10s  %.0f GB/s\n", g.name.c_str(), g.tflops,
                    g.memoryGiB, g.memoryBandwidthGBps, price.c_str(),
                    g.typicalIntra.bandwidthGBps);
    }
    return 0;
}

int listModels(bool json)
{
    const std::vector<ModelSpec> &models = builtinModelCatalog().all();
    if (json) {
        std::cout << modelCatalogJson(models) << '\n';
        return 0;
    }
    std::printf("%-14s %7s %7s %7s %6s %4s %8s %10s\n", "model", "layers", "hidden", "ffn", "heads",
                "kv", "vocab", "params");
    for (const ModelSpec &m : models)
        std::printf("%-14s %7d %7d %7d %6d %4d %8d %9.2fB\n", m.name.c_str(), m.layers, m.hidden,
                    m.ffnHidden, m.heads, m.kvHeads, m.vocab, m.totalParams() / 1e9);
    return 0;
}

int listExamples(bool json)
{
    const std::vector<Example> examples = bundledExamples();
    if (json) {
        std::cout << examplesJson(examples) << '\n';
        return 0;
    }
    for (const Example &e : examples)
        std::printf("%-22s %-9s %s\n", e.name.c_str(), std::string(exampleKindName(e.kind)).c_str(),
                    e.path.c_str());
    return 0;
}

} // namespace

int runCatalog(const std::vector<std::string> &words)
{
    auto args = Args::parse(words, Args::Spec{{}, {"json"}});
    if (!args)
        return fail(args.error());
    const auto &what = args->positional();
    const bool json = args->has("json");
    if (what.size() == 1 && what[0] == "gpus")
        return listGpus(json);
    if (what.size() == 1 && what[0] == "models")
        return listModels(json);
    if (what.size() == 1 && what[0] == "examples")
        return listExamples(json);
    return fail(badInput("catalog: expected one of gpus, models, examples"));
}

} // namespace hetplan::cli
