#include "core/io/catalog_json.h"

#include "core/base/enum_names.h"

#include <nlohmann/json.hpp>

namespace hetplan {
namespace {

using Json = nlohmann::json;

constexpr EnumName<ExampleKind> kExampleKinds[] = {{"cluster", ExampleKind::Cluster},
                                                   {"plan", ExampleKind::Plan},
                                                   {"workload", ExampleKind::Workload}};

} // namespace

std::string_view exampleKindName(ExampleKind kind)
{
    return nameOf<ExampleKind>(kExampleKinds, kind);
}

std::string gpuCatalogJson(std::span<const GpuType> gpus)
{
    Json rows = Json::array();
    for (const GpuType &g : gpus)
        rows.push_back(
            {{"name", g.name},
             {"tflops", g.tflops},
             {"memory_GiB", g.memoryGiB},
             {"membw_GBps", g.memoryBandwidthGBps},
             {"price_per_hour_usd", g.pricePerHourUsd ? Json(*g.pricePerHourUsd) : Json()},
             {"source", g.source}});
    return rows.dump(2);
}

std::string modelCatalogJson(std::span<const ModelSpec> models)
{
    Json rows = Json::array();
    for (const ModelSpec &m : models)
        rows.push_back({{"name", m.name},
                        {"layers", m.layers},
                        {"hidden", m.hidden},
                        {"ffn_hidden", m.ffnHidden},
                        {"heads", m.heads},
                        {"kv_heads", m.kvHeads},
                        {"vocab", m.vocab},
                        {"params", m.totalParams()}});
    return rows.dump(2);
}

std::string examplesJson(std::span<const Example> examples)
{
    Json rows = Json::array();
    for (const Example &e : examples)
        rows.push_back({{"name", e.name}, {"kind", exampleKindName(e.kind)}, {"path", e.path}});
    return rows.dump(2);
}

} // namespace hetplan
