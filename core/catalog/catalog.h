#pragma once

#include "core/base/result.h"
#include "core/model/gpu_type.h"
#include "core/model/model_spec.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hetplan {

// GPU types known by name (resources/catalog/gpus.json, compiled in). A range of GpuType, so
// it passes as the catalog of Topology::build.
class GpuCatalog
{
public:
    static const GpuCatalog &builtin();
    static Result<GpuCatalog> parse(std::string_view text, std::string_view source);

    const GpuType *find(std::string_view name) const; // case-insensitive
    const std::vector<GpuType> &all() const { return m_types; }
    auto begin() const { return m_types.begin(); }
    auto end() const { return m_types.end(); }

private:
    std::vector<GpuType> m_types;
};

// Models known by name (resources/catalog/models.json, compiled in).
class ModelCatalog
{
public:
    static const ModelCatalog &builtin();
    static Result<ModelCatalog> parse(std::string_view text, std::string_view source);

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
