// parseNcclTests on arbitrary bytes: an accepted log has ranks and rows, every figure finite
// and in range, and busbw consistent with algbw × the collective's factor.
#include "core/import/nccl_tests.h"
#include "fuzz_check.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    auto log = hetplan::parseNcclTests(text, "all_reduce_perf.log");
    if (!log)
        return 0;
    HETPLAN_FUZZ_CHECK(!log->ranks.empty() && !log->rows.empty());
    const double factor = hetplan::busBwFactor(log->collective, int(log->ranks.size()));
    for (const hetplan::NcclRow &r : log->rows) {
        HETPLAN_FUZZ_CHECK(std::isfinite(r.bytes) && r.bytes > 0);
        HETPLAN_FUZZ_CHECK(std::isfinite(r.timeUs) && r.timeUs > 0);
        HETPLAN_FUZZ_CHECK(r.busBwGBps >= 0 && r.algBwGBps >= 0);
        HETPLAN_FUZZ_CHECK(std::abs(r.busBwGBps - r.algBwGBps * factor)
                           <= 0.02 + 0.01 * std::max(r.busBwGBps, r.algBwGBps * factor));
    }
    for (std::size_t i = 1; i < log->ranks.size(); ++i)
        HETPLAN_FUZZ_CHECK(log->ranks[i - 1].rank < log->ranks[i].rank);
    return 0;
}
