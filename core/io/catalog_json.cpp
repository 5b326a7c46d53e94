// The catalogs' file format and the compiled-in catalogs (resources/catalog/).
#include "core/io/catalog_json.h"

#include "core/base/enum_names.h"
#include "core/base/text.h"
#include "core/catalog/embedded.h"
#include "core/io/format_objects.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace hetplan {

using namespace jsonio;

namespace {

constexpr std::string_view kGpuCatalogFormat = "hetplan.gpu-catalog/1";
constexpr std::string_view kModelCatalogFormat = "hetplan.model-catalog/1";
constexpr std::size_t kMaxCatalogEntries = 4096;
constexpr EnumName<ExampleKind> kExampleKinds[] = {{"cluster", ExampleKind::Cluster},
                                                   {"plan", ExampleKind::Plan},
                                                   {"workload", ExampleKind::Workload}};

std::string_view embeddedText(std::string_view path)
{
    for (const embedded::EmbeddedFile &f : embedded::files())
        if (f.path == path)
            return f.text;
    return {};
}

// The compiled-in catalog is part of the program: if it does not parse, the build is broken.
template<typename Catalog, typename Read>
Catalog readBuiltin(std::string_view path, Read read)
{
    auto catalog = read(embeddedText(path), path);
    if (!catalog) {
        std::fprintf(stderr, "HetPlan bug: the bundled %.*s is broken: %s\n", int(path.size()),
                     path.data(), catalog.error().message.c_str());
        std::abort();
    }
    return std::move(catalog).value();
}

// Names are looked up case-insensitively, so they must be unique that way too.
template<typename T>
void checkUniqueName(const std::vector<T> &entries, const Value &where)
{
    for (std::size_t j = 0; j + 1 < entries.size(); ++j)
        if (equalsIgnoringCase(entries[j].name, entries.back().name))
            where.fail("\"" + entries.back().name + "\" is already entry " + std::to_string(j)
                       + " (names are compared ignoring case)");
}

} // namespace

Result<GpuCatalog> readGpuCatalog(std::string_view text, std::string_view source)
{
    return readDocument(text, source, kGpuCatalogFormat, [&](Object &root) {
        std::vector<GpuType> types;
        const Array gpus = root.required("gpus").array(kMaxCatalogEntries);
        for (std::size_t i = 0; i < gpus.size(); ++i) {
            types.push_back(readGpuType(gpus.at(i)));
            checkUniqueName(types, gpus.at(i));
        }
        return GpuCatalog(std::move(types));
    });
}

Result<ModelCatalog> readModelCatalog(std::string_view text, std::string_view source)
{
    return readDocument(text, source, kModelCatalogFormat, [&](Object &root) {
        std::vector<ModelSpec> specs;
        const Array models = root.required("models").array(kMaxCatalogEntries);
        for (std::size_t i = 0; i < models.size(); ++i) {
            Object entry = models.at(i).object();
            specs.push_back(readModelFields(entry));
            entry.finish();
            checkUniqueName(specs, models.at(i));
        }
        return ModelCatalog(std::move(specs));
    });
}

const GpuCatalog &builtinGpuCatalog()
{
    static const GpuCatalog catalog = readBuiltin<GpuCatalog>("catalog/gpus.json", readGpuCatalog);
    return catalog;
}

const ModelCatalog &builtinModelCatalog()
{
    static const ModelCatalog catalog
        = readBuiltin<ModelCatalog>("catalog/models.json", readModelCatalog);
    return catalog;
}

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
