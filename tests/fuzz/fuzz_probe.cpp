// parseProbe on arbitrary bytes; an accepted file must survive writeProbe, with every
// implausible figure flagged.
#include "core/io/probe_file.h"
#include "fuzz_check.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    auto probe = hetplan::parseProbe(text, "fuzz.probe.json");
    if (!probe)
        return 0;
    for (const hetplan::PlausibilityFlag &f : hetplan::plausibilityFlags(*probe))
        HETPLAN_FUZZ_CHECK(std::ranges::any_of(
            probe->flags, [&](const auto &g) { return g.path == f.path && g.check == f.check; }));
    const std::string written = hetplan::writeProbe(*probe);
    auto again = hetplan::parseProbe(written, "written");
    HETPLAN_FUZZ_CHECK(again.ok());
    HETPLAN_FUZZ_CHECK(*again == *probe);
    HETPLAN_FUZZ_CHECK(hetplan::writeProbe(*again) == written);
    return 0;
}
