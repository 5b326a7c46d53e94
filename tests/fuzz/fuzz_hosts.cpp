// parseHosts on arbitrary bytes; an accepted file must survive writeHosts.
#include "core/io/hosts_json.h"
#include "fuzz_check.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    auto hosts = hetplan::parseHosts(text, "fuzz.hosts.json");
    if (!hosts)
        return 0;
    HETPLAN_FUZZ_CHECK(!hosts->hosts.empty());
    for (const hetplan::HostEntry &e : hosts->hosts)
        HETPLAN_FUZZ_CHECK(e.port >= 1 && e.port <= 65535 && !e.host.empty());
    const std::string written = hetplan::writeHosts(*hosts);
    auto again = hetplan::parseHosts(written, "written");
    HETPLAN_FUZZ_CHECK(again.ok());
    HETPLAN_FUZZ_CHECK(again->hosts == hosts->hosts);
    HETPLAN_FUZZ_CHECK(hetplan::writeHosts(*again) == written);
    return 0;
}
