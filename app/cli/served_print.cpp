#include "app/cli/served_print.h"

#include "app/cli/served_summary.h"
#include "app/cli/serving_report.h"
#include "app/cli/setup.h"
#include "runtime/worker/served_run.h"

#include <iostream>

namespace hetplan::cli {
namespace {

// The simulator's prediction for the run's own requests, beside what it measured.
Status printComparison(const runtime::Job &job, const std::string &planPath,
                       const CostModel &costModel, const ServingMeasurement &measured)
{
    const Problem planned{*job.topology, job.model, job.plan.workload};
    auto compared = compareServedRun(measured, "the run", planned, costModel, job.plan, planPath);
    if (!compared)
        return compared.error();
    printServingComparison(std::cout, measured, *compared);
    return okStatus();
}

} // namespace

Result<ServeOptions> serveOptions(const Args &args, int seed)
{
    auto requests = args.integer("requests", 1, 1 << 24);
    auto duration = args.number("duration", 0.001, 86400.0 * 365);
    auto rate = args.number("rate", 1e-6, 1e6);
    auto temperature = args.number("temperature", 0.0, 100.0);
    if (!requests)
        return requests.error();
    for (const auto *read : {&duration, &rate, &temperature})
        if (!*read)
            return read->error();
    ServeOptions o;
    o.stream.requests = requests->value_or(0);
    o.stream.durationS = duration->value_or(0);
    o.stream.rate = *rate;
    o.stream.trace = args.value("trace").value_or("");
    o.stream.seed = std::uint64_t(seed);
    o.temperature = temperature->value_or(0);
    return o;
}

int finishServed(const runtime::Job &job, const std::string &planPath, const ServeSetup &setup,
                 std::vector<ServedRequest> records, const std::string &failure,
                 const std::optional<std::string> &outDir, const std::vector<std::string> &hosts)
{
    auto measured
        = runtime::accountServed(job, planPath, setup, std::move(records), failure, hosts);
    if (!measured)
        return fail(measured.error());
    printServedSummary(std::cout, *measured);
    if (outDir)
        if (Status written = runtime::writeServedMeasurement(*outDir, *measured); !written)
            return fail(badInput("--out " + written.error().message));
    if (!failure.empty()) {
        std::cerr << "hetplan-cli: error: run failed: " << failure << '\n';
        return 1;
    }
    if (Status printed = printComparison(job, planPath, *setup.costModel, *measured); !printed)
        return fail(printed.error());
    return 0;
}

} // namespace hetplan::cli
