#include "app/cli/served_summary.h"

#include "app/cli/report.h"
#include "app/cli/serving_report.h"

#include <algorithm>
#include <iomanip>
#include <map>

namespace hetplan::cli {

namespace {

void printRow(std::ostream &out, const char *name, const LatencyStats &stats)
{
    out << "  " << std::left << std::setw(26) << name << std::right;
    for (double s : {stats.meanS, stats.p50S, stats.p90S, stats.p99S})
        out << std::setw(11) << formatSeconds(s);
    out << '\n';
}

} // namespace

void printServedSummary(std::ostream &out, const ServingMeasurement &measured)
{
    const ServingSummary &s = measured.summary;
    out << "served " << s.completed << " of " << s.requests << " requests on "
        << measured.replicas.size() << " replicas\n";
    // As benchmark_serving users expect, the warm-up is said (docs/runtime.md, "Serving runs").
    if (s.warmup > 0)
        out << "  warm-up: the first " << s.warmup
            << " requests, served but left out of the figures below\n";
    else
        out << "  warm-up: one unrecorded request per replica before the stream; every request "
               "above is measured\n";
    for (const ServedReplica &r : measured.replicas) {
        out << "  replica " << r.replica << ": " << r.completed << " completed, " << r.failed
            << " failed";
        if (r.completed > 0)
            out << "; mean queueing " << formatSeconds(r.meanQueueS) << ", prefill "
                << formatSeconds(r.meanPrefillS) << ", per output token "
                << formatSeconds(r.meanTpotS);
        out << '\n';
    }
    std::map<std::string, int> failures;
    for (const ServedRequest &r : measured.requests)
        if (!r.completed)
            ++failures[r.failure.empty() ? std::string("no record") : r.failure];
    for (const auto &[why, count] : failures)
        out << "  failed (" << count << "): " << why << '\n';
    if (s.completed - s.warmup <= 0)
        return;
    out << "  " << std::left << std::setw(26) << "completed requests" << std::right << std::setw(11)
        << "mean" << std::setw(11) << "p50" << std::setw(11) << "p90" << std::setw(11) << "p99"
        << '\n';
    printRow(out, "time to first token", s.ttft);
    printRow(out, "time per output token", s.tpot);
    printRow(out, "end-to-end latency", s.latency);
    out << "  SLO " << formatSeconds(measured.run.sloS) << ": " << std::fixed
        << std::setprecision(1) << s.attainment * 100 << " % attained; " << std::setprecision(2)
        << s.outputTokensPerS << " output tokens/s\n";
}

} // namespace hetplan::cli
