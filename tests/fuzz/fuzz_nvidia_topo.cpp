// parseNvidiaTopo on arbitrary bytes: an accepted matrix is square, marks only its diagonal X,
// and lists every GPU pair once.
#include "core/import/nvidia_topo.h"
#include "fuzz_check.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    auto topo = hetplan::parseNvidiaTopo(text, "fuzz.topo");
    if (!topo)
        return 0;
    const std::size_t n = topo->devices.size();
    HETPLAN_FUZZ_CHECK(n > 0 && topo->links.size() == n);
    std::size_t gpus = 0;
    for (std::size_t i = 0; i < n; ++i) {
        HETPLAN_FUZZ_CHECK(topo->links[i].size() == n);
        HETPLAN_FUZZ_CHECK(topo->links[i][i] == "X");
        gpus += topo->isGpu(i) ? 1 : 0;
    }
    const std::size_t expected = gpus * (gpus - 1) / 2 + gpus * (n - gpus);
    HETPLAN_FUZZ_CHECK(hetplan::topoLinks(*topo).size() == expected);
    return 0;
}
