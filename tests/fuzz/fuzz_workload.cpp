// parseWorkload on arbitrary bytes; accepted workloads must survive writeWorkload unchanged.
#include "core/io/formats.h"
#include "fuzz_check.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    auto workload = hetplan::parseWorkload(text, "fuzz.workload.json");
    if (!workload)
        return 0;
    HETPLAN_FUZZ_CHECK(!workload->train.microBatchSizes.empty());
    auto again = hetplan::parseWorkload(hetplan::writeWorkload(*workload), "written");
    HETPLAN_FUZZ_CHECK(again.ok());
    HETPLAN_FUZZ_CHECK(*again == *workload);
    return 0;
}
