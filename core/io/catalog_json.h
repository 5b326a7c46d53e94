#pragma once

// The GPU and model catalogs as files (docs/formats.md, "GPU type (in `gpu_types` and in the GPU
// catalog)"), and the bundled ones (resources/catalog/), read once and kept for the program's life.

#include "core/base/result.h"
#include "core/catalog/catalog.h"

#include <string_view>

namespace hetplan {

// `source` names the text in error messages.
Result<GpuCatalog> readGpuCatalog(std::string_view text, std::string_view source);
Result<ModelCatalog> readModelCatalog(std::string_view text, std::string_view source);

// resources/catalog/gpus.json and models.json, compiled in.
const GpuCatalog &builtinGpuCatalog();
const ModelCatalog &builtinModelCatalog();

} // namespace hetplan
