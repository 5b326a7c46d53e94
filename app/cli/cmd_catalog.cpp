#include "app/cli/commands.h"
#include "app/cli/setup.h"
#include "core/io/catalog_json.h"

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

namespace hetplan::cli {
namespace {

std::string_view kindName(ExampleKind kind)
{
    switch (kind) {
    case ExampleKind::Cluster:
        return "cluster";
    case ExampleKind::Plan:
        return "plan";
    case ExampleKind::Workload:
        return "workload";
    }
    return "?";
}

int listGpus(bool json)
{
    nlohmann::json rows = nlohmann::json::array();
    if (!json)
        std::printf("%-16s %8s %8s %10s %10s  %s\n", "GPU", "TFLOPS", "GiB", "mem GB/s", "$/hour",
                    "intra link");
    for (const GpuType &g : builtinGpuCatalog().all()) {
        if (json) {
            rows.push_back(
                {{"name", g.name},
                 {"tflops", g.tflops},
                 {"memory_GiB", g.memoryGiB},
                 {"membw_GBps", g.memoryBandwidthGBps},
                 {"price_per_hour_usd",
                  g.pricePerHourUsd ? nlohmann::json(*g.pricePerHourUsd) : nlohmann::json()},
                 {"source", g.source}});
            continue;
        }
        const std::string price
            = g.pricePerHourUsd ? std::to_string(*g.pricePerHourUsd).substr(0, 5) : "-";
        std::printf("%-16s %8.1f %8.0f %10.0f %10s  %.0f GB/s\n", g.name.c_str(), g.tflops,
                    g.memoryGiB, g.memoryBandwidthGBps, price.c_str(),
                    g.typicalIntra.bandwidthGBps);
    }
    if (json)
        std::cout << rows.dump(2) << '\n';
    return 0;
}

int listModels(bool json)
{
    nlohmann::json rows = nlohmann::json::array();
    if (!json)
        std::printf("%-14s %7s %7s %7s %6s %4s %8s %10s\n", "model", "layers", "hidden", "ffn",
                    "heads", "kv", "vocab", "params");
    for (const ModelSpec &m : builtinModelCatalog().all()) {
        if (json) {
            rows.push_back({{"name", m.name},
                            {"layers", m.layers},
                            {"hidden", m.hidden},
                            {"ffn_hidden", m.ffnHidden},
                            {"heads", m.heads},
                            {"kv_heads", m.kvHeads},
                            {"vocab", m.vocab},
                            {"params", m.totalParams()}});
            continue;
        }
        std::printf("%-14s %7d %7d %7d %6d %4d %8d %9.2fB\n", m.name.c_str(), m.layers, m.hidden,
                    m.ffnHidden, m.heads, m.kvHeads, m.vocab, m.totalParams() / 1e9);
    }
    if (json)
        std::cout << rows.dump(2) << '\n';
    return 0;
}

int listExamples(bool json)
{
    nlohmann::json rows = nlohmann::json::array();
    for (const Example &e : bundledExamples()) {
        if (json)
            rows.push_back({{"name", e.name}, {"kind", kindName(e.kind)}, {"path", e.path}});
        else
            std::printf("%-22s %-9s %s\n", e.name.c_str(), std::string(kindName(e.kind)).c_str(),
                        e.path.c_str());
    }
    if (json)
        std::cout << rows.dump(2) << '\n';
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
