// The catalogs as data and the compiled-in example files (resources/examples/); the catalogs
// are read by core/io/catalog_json.h.
#include "core/catalog/catalog.h"

#include "core/base/text.h"
#include "core/catalog/embedded.h"

#include <algorithm>

namespace hetplan {

namespace {

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

const GpuType *GpuCatalog::find(std::string_view name) const
{
    return findByName(m_types, name);
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
