// parseServingMeasurement on arbitrary bytes; an accepted file accounts for every request and
// survives writeServingMeasurement.
#include "core/io/serving_measurement_json.h"
#include "fuzz_check.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    auto measurement = hetplan::parseServingMeasurement(text, "fuzz.serving.json");
    if (!measurement)
        return 0;
    const hetplan::ServingSummary &summary = measurement->summary;
    HETPLAN_FUZZ_CHECK(summary.completed + summary.failed == summary.requests);
    HETPLAN_FUZZ_CHECK(std::size_t(summary.requests) == measurement->requests.size());
    const std::string written = hetplan::writeServingMeasurement(*measurement);
    auto again = hetplan::parseServingMeasurement(written, "written");
    HETPLAN_FUZZ_CHECK(again.ok());
    HETPLAN_FUZZ_CHECK(hetplan::writeServingMeasurement(*again) == written);
    return 0;
}
