#pragma once

#include "core/model/gpu_type.h"
#include "core/model/model_spec.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hetplan {

// GPU types known by name: the bundled ones (resources/catalog/gpus.json) are
// builtinGpuCatalog() of core/io/catalog_json.h. A range of GpuType, so it passes as the catalog
// of Topology::build.
class GpuCatalog
{
public:
    GpuCatalog() = default;
    explicit GpuCatalog(std::vector<GpuType> types)
        : m_types(std::move(types))
    {}

    const GpuType *find(std::string_view name) const; // case-insensitive
    const std::vector<GpuType> &all() const { return m_types; }
    auto begin() const { return m_types.begin(); }
    auto end() const { return m_types.end(); }

private:
    std::vector<GpuType> m_types;
};

// Models known by name: the bundled ones (resources/catalog/models.json) are
// builtinModelCatalog() of core/io/catalog_json.h.
class ModelCatalog
{
public:
    ModelCatalog() = default;
    explicit ModelCatalog(std::vector<ModelSpec> models)
        : m_models(std::move(models))
    {}

    const ModelSpec *find(std::string_view name) const; // case-insensitive
    const std::vector<ModelSpec> &all() const { return m_models; }

private:
    std::vector<ModelSpec> m_models;
};

// Bundled example files (resources/examples/), found by name: "case-study" is
// examples/case-study.cluster.json; plans are "<name>.plan.json".
enum class ExampleKind { Cluster, Plan, Workload };
struct Example
{
    std::string name; // "case-study"
    ExampleKind kind;
    std::string_view text;
    std::string path; // "examples/case-study.cluster.json"
};

std::vector<Example> bundledExamples();
std::optional<Example> findExample(std::string_view name, ExampleKind kind);
// The catalog model that a bundled cluster's paper plans on it ("hexgen-full-price" ->
// "llama2-70b"), the default for that example; empty for any other name.
std::optional<std::string> exampleModel(std::string_view name);

} // namespace hetplan
