// The compiled-in catalogs (resources/catalog/) and example files (resources/examples/).
#include "core/catalog/catalog.h"

#include "core/base/text.h"
#include "core/catalog/embedded.h"
#include "core/io/format_objects.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace hetplan {

using namespace jsonio;

namespace {

constexpr std::string_view kGpuCatalogFormat = "hetplan.gpu-catalog/1";
constexpr std::string_view kModelCatalogFormat = "hetplan.model-catalog/1";
constexpr std::size_t kMaxCatalogEntries = 4096;

std::string_view embeddedText(std::string_view path)
{
    for (const embedded::EmbeddedFile &f : embedded::files())
        if (f.path == path)
            return f.text;
    return {};
}

// The compiled-in catalog is part of the program: if it does not parse, the build is broken.
template<typename Catalog>
Catalog parseBuiltin(std::string_view path)
{
    auto catalog = Catalog::parse(embeddedText(path), path);
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

template<typename T>
const T *findByName(const std::vector<T> &entries, std::string_view name)
{
    for (const T &e : entries)
        if (equalsIgnoringCase(e.name, name))
            return &e;
    return nullptr;
}

struct ExampleSuffix
{
    std::string_view suffix;
    ExampleKind kind;
};
constexpr ExampleSuffix kExampleSuffixes[] = {{".cluster.json", ExampleKind::Cluster},
                                              {".plan.json", ExampleKind::Plan},
                                              {".workload.json", ExampleKind::Workload}};
constexpr std::string_view kExamplesFolder = "examples/";

} // namespace

const GpuCatalog &GpuCatalog::builtin()
{
    static const GpuCatalog catalog = parseBuiltin<GpuCatalog>("catalog/gpus.json");
    return catalog;
}

Result<GpuCatalog> GpuCatalog::parse(std::string_view text, std::string_view source)
{
    return readDocument(text, source, kGpuCatalogFormat, [&](Object &root) {
        GpuCatalog catalog;
        const Array gpus = root.required("gpus").array(kMaxCatalogEntries);
        for (std::size_t i = 0; i < gpus.size(); ++i) {
            catalog.m_types.push_back(readGpuType(gpus.at(i)));
            checkUniqueName(catalog.m_types, gpus.at(i));
        }
        return catalog;
    });
}

const GpuType *GpuCatalog::find(std::string_view name) const
{
    return findByName(m_types, name);
}

const ModelCatalog &ModelCatalog::builtin()
{
    static const ModelCatalog catalog = parseBuiltin<ModelCatalog>("catalog/models.json");
    return catalog;
}

Result<ModelCatalog> ModelCatalog::parse(std::string_view text, std::string_view source)
{
    return readDocument(text, source, kModelCatalogFormat, [&](Object &root) {
        ModelCatalog catalog;
        const Array models = root.required("models").array(kMaxCatalogEntries);
        for (std::size_t i = 0; i < models.size(); ++i) {
            Object entry = models.at(i).object();
            catalog.m_models.push_back(readModelFields(entry));
            entry.finish();
            checkUniqueName(catalog.m_models, models.at(i));
        }
        return catalog;
    });
}

const ModelSpec *ModelCatalog::find(std::string_view name) const
{
    return findByName(m_models, name);
}

std::vector<Example> bundledExamples()
{
    std::vector<Example> examples;
    for (const embedded::EmbeddedFile &f : embedded::files()) {
        if (!f.path.starts_with(kExamplesFolder))
            continue;
        const std::string_view file = f.path.substr(kExamplesFolder.size());
        for (const ExampleSuffix &s : kExampleSuffixes) {
            if (file.size() > s.suffix.size() && file.ends_with(s.suffix)) {
                examples.push_back({std::string(file.substr(0, file.size() - s.suffix.size())),
                                    s.kind, f.text, std::string(f.path)});
                break;
            }
        }
    }
    return examples;
}

std::optional<Example> findExample(std::string_view name, ExampleKind kind)
{
    for (Example &e : bundledExamples())
        if (e.kind == kind && equalsIgnoringCase(e.name, name))
            return std::move(e);
    return std::nullopt;
}

std::optional<std::string> exampleModel(std::string_view name)
{
    // Where a paper plans two sizes on one cluster, the larger one that still fits.
    static constexpr std::pair<std::string_view, std::string_view> kModels[] = {
        {"case-study", "llama2-13b"},        // HexiScale §3.1
        {"hetero-setting-1", "llama2-13b"},  // HexiScale §5.1 (7B and 13B)
        {"hetero-setting-2", "llama2-13b"},  // HexiScale §5.1 (7B and 13B)
        {"hetero-setting-3", "llama-30b"},   // HexiScale §5.1, Table 2
        {"large-cluster", "llama2-70b"},     // HexiScale Appendix B (Llama 30B, Llama-2 70B)
        {"metis-v100-t4", "gpt3-6.7b"},      // Metis §6
        {"holmes-hybrid", "gpt3-7.5b"},      // Holmes Table 2, parameter group 3
        {"hexgen-full-price", "llama2-70b"}, // HexGen §5
        {"hexgen-half-price", "llama2-70b"}, // HexGen §5
    };
    for (const auto &[example, model] : kModels)
        if (equalsIgnoringCase(example, name))
            return std::string(model);
    return std::nullopt;
}

} // namespace hetplan
