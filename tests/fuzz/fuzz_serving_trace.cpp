// parseServingTrace on arbitrary bytes; an accepted trace is in order and within its limits.
#include "core/serving/serving_stream.h"
#include "fuzz_check.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    auto requests = hetplan::parseServingTrace(text, "fuzz.trace");
    if (!requests)
        return 0;
    HETPLAN_FUZZ_CHECK(!requests->empty());
    double previousS = 0;
    for (const hetplan::ServingRequest &r : *requests) {
        HETPLAN_FUZZ_CHECK(r.arrivalS >= previousS);
        HETPLAN_FUZZ_CHECK(r.promptTokens >= 1 && r.promptTokens <= hetplan::kMaxRequestTokens);
        HETPLAN_FUZZ_CHECK(r.outputTokens >= 1 && r.outputTokens <= hetplan::kMaxRequestTokens);
        previousS = r.arrivalS;
    }
    return 0;
}
