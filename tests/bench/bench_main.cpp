// hetplan-bench: measures the budgets of docs/architecture.md ("Budgets"). Prints numbers; never
// fails on speed (timed unit tests are flaky on shared machines). Usage: hetplan-bench [filter]
#include "tests/bench/bench_util.h"

#include <cstdio>
#include <string>

int main(int argc, char **argv)
{
    const std::string filter = argc > 1 ? argv[1] : "";
    std::printf("HetPlan benchmarks (median of repeated runs; lower is better)\n\n");
    for (const hetplan::bench::Benchmark &b : hetplan::bench::registry()) {
        if (!filter.empty() && b.name.find(filter) == std::string::npos)
            continue;
        b.run();
    }
    return 0;
}
