// parseMeasurement on arbitrary bytes; an accepted file must survive writeMeasurement.
#include "core/io/measurement_json.h"
#include "fuzz_check.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    auto measurement = hetplan::parseMeasurement(text, "fuzz.measurement.json");
    if (!measurement)
        return 0;
    HETPLAN_FUZZ_CHECK(measurement->loss.size() == std::size_t(measurement->run.iterations));
    for (const hetplan::MeasuredRank &r : measurement->ranks)
        HETPLAN_FUZZ_CHECK(r.iterations.size() == measurement->loss.size());
    const std::string written = hetplan::writeMeasurement(*measurement);
    auto again = hetplan::parseMeasurement(written, "written");
    HETPLAN_FUZZ_CHECK(again.ok());
    HETPLAN_FUZZ_CHECK(hetplan::writeMeasurement(*again) == written);
    return 0;
}
