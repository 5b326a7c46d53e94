// Importing nccl-tests logs of 10 to 2,048 hosts (issue 25): the time per host should stay
// flat (linear within a factor of 2) from the smallest log to the machine limit. The logs are
// generated as the import tests generate them, one rank per host, 22 message sizes.
#include "core/import/import.h"
#include "tests/bench/bench_util.h"
#include "tests/core/import_fixtures.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace hetplan::bench {
namespace {

void benchImport()
{
    std::printf("import of an nccl-tests all_reduce log, one rank per host:\n");
    std::printf("  %6s  %9s  %10s  %12s\n", "hosts", "log KiB", "ms", "us per host");
    double fastest = 0;
    double slowest = 0;
    for (int hosts : {10, 100, 1000, kMaxMachines}) {
        fixtures::LogSpec spec;
        for (int h = 0; h < hosts; ++h)
            spec.ranks.push_back({"gpu" + std::to_string(h), 0});
        spec.maxBytes = 1 << 24;
        const std::vector<ImportInput> inputs{{"all_reduce_perf.log", fixtures::ncclLog(spec)}};
        bool ok = true;
        const double s = medianSecondsPerCall([&] { ok = importMeasurements(inputs).ok() && ok; });
        const double perHostUs = s * 1e6 / hosts;
        fastest = fastest == 0 ? perHostUs : std::min(fastest, perHostUs);
        slowest = std::max(slowest, perHostUs);
        std::printf("  %6d  %9.1f  %10.2f  %12.2f%s\n", hosts, double(inputs[0].text.size()) / 1024,
                    s * 1e3, perHostUs, ok ? "" : "  FAILED");
    }
    std::printf("  time per host: largest / smallest = %.2f (linear within 2: %s)\n\n",
                slowest / fastest, slowest <= 2 * fastest ? "yes" : "no");
}

const Register registered("import", benchImport);

} // namespace
} // namespace hetplan::bench
