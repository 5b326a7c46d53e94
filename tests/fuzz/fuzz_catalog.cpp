// The catalog parsers and the format peeks on arbitrary bytes: errors, never crashes.
#include "core/io/catalog_json.h"
#include "core/io/formats.h"
#include "fuzz_check.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    if (auto gpus = hetplan::readGpuCatalog(text, "fuzz.gpus.json")) {
        for (const hetplan::GpuType &t : gpus->all())
            HETPLAN_FUZZ_CHECK(gpus->find(t.name) != nullptr && t.tflops > 0);
    }
    if (auto models = hetplan::readModelCatalog(text, "fuzz.models.json")) {
        for (const hetplan::ModelSpec &m : models->all())
            HETPLAN_FUZZ_CHECK(models->find(m.name) != nullptr && m.hidden % m.heads == 0);
    }
    (void)hetplan::fileFormat(text, "fuzz.json");
    (void)hetplan::planClusterName(text, "fuzz.json");
    return 0;
}
