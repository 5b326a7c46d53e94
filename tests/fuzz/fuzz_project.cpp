// parseProject on arbitrary bytes; an accepted project must survive writeProject unchanged.
#include "core/io/project_json.h"
#include "fuzz_check.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    auto project = hetplan::parseProject(text, "fuzz.project.json");
    if (!project)
        return 0;
    const std::string written = hetplan::writeProject(*project);
    auto again = hetplan::parseProject(written, "written");
    HETPLAN_FUZZ_CHECK(again.ok());
    HETPLAN_FUZZ_CHECK(hetplan::writeProject(*again) == written);
    return 0;
}
