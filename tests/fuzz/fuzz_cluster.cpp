// parseCluster on arbitrary bytes; accepted clusters must survive writeCluster unchanged.
#include "core/io/formats.h"
#include "fuzz_check.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    auto cluster = hetplan::parseCluster(text, "fuzz.cluster.json");
    if (!cluster) {
        HETPLAN_FUZZ_CHECK(!cluster.error().message.empty());
        return 0;
    }
    auto again = hetplan::parseCluster(hetplan::writeCluster(*cluster), "written");
    HETPLAN_FUZZ_CHECK(again.ok());
    HETPLAN_FUZZ_CHECK(*again == *cluster);
    return 0;
}
