#pragma once

// The JSON `hetplan-cli catalog gpus|models|examples --json` prints: an array with one object
// per entry, keys in name order (a report, not a file HetPlan reads back). Each writer returns
// the whole text, no trailing newline.

#include "core/catalog/catalog.h"
#include "core/model/gpu_type.h"
#include "core/model/model_spec.h"

#include <span>
#include <string>
#include <string_view>

namespace hetplan {

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
