#pragma once

// The GPU and model catalogs as files (docs/formats.md, "GPU type (in `gpu_types` and in the GPU
// catalog)"), the bundled ones (resources/catalog/), read once and kept for the program's life,
// and the JSON `hetplan-cli catalog gpus|models|examples --json` prints: an array with one object
// per entry, keys in name order (a report, not a file HetPlan reads back). Each report writer
// returns the whole text, no trailing newline.

#include "core/base/result.h"
#include "core/catalog/catalog.h"
#include "core/model/gpu_type.h"
#include "core/model/model_spec.h"

#include <span>
#include <string>
#include <string_view>

namespace hetplan {

// `source` names the text in error messages.
Result<GpuCatalog> readGpuCatalog(std::string_view text, std::string_view source);
Result<ModelCatalog> readModelCatalog(std::string_view text, std::string_view source);

// resources/catalog/gpus.json and models.json, compiled in.
const GpuCatalog &builtinGpuCatalog();
const ModelCatalog &builtinModelCatalog();

// "cluster", "plan", "workload": the kind as the catalog listing names it.
std::string_view exampleKindName(ExampleKind kind);

// [{"name", "tflops", "memory_GiB", "membw_GBps", "price_per_hour_usd" (null: unknown),
//   "source"}, …]
std::string gpuCatalogJson(std::span<const GpuType> gpus);
// [{"name", "layers", "hidden", "ffn_hidden", "heads", "kv_heads", "vocab", "params"}, …]
std::string modelCatalogJson(std::span<const ModelSpec> models);
// [{"name", "kind", "path"}, …]
std::string examplesJson(std::span<const Example> examples);

} // namespace hetplan
