// parseNvbandwidth on arbitrary bytes: an accepted output has matrices whose rows each hold one
// cell per column, every figure finite and non-negative.
#include "core/import/nvbandwidth.h"
#include "fuzz_check.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    auto out = hetplan::parseNvbandwidth(text, "fuzz.nvbandwidth.txt");
    if (!out)
        return 0;
    HETPLAN_FUZZ_CHECK(!out->matrices.empty());
    for (const hetplan::NvbandwidthMatrix &m : out->matrices) {
        HETPLAN_FUZZ_CHECK(!m.rows.empty() && !m.columns.empty() && !m.testcase.empty());
        HETPLAN_FUZZ_CHECK(m.cells.size() == m.rows.size());
        for (const auto &row : m.cells) {
            HETPLAN_FUZZ_CHECK(row.size() == m.columns.size());
            for (const auto &cell : row)
                HETPLAN_FUZZ_CHECK(!cell || (std::isfinite(*cell) && *cell >= 0));
        }
    }
    return 0;
}
