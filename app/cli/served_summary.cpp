#include "app/cli/served_summary.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <string>

namespace hetplan::cli {

namespace {

// Nearest-rank percentile (the smallest value with at least q of the values at or below it).
double percentile(std::vector<double> values, double q)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const auto rank = std::size_t(std::ceil(q * double(values.size())));
    return values[std::min(values.size(), std::max<std::size_t>(rank, 1)) - 1];
}

void printRow(std::ostream &out, const char *name, const std::vector<double> &valuesS)
{
    out << "  " << std::left << std::setw(26) << name << std::right << std::fixed
        << std::setprecision(2);
    for (double q : {0.5, 0.9, 0.99})
        out << std::setw(11) << percentile(valuesS, q) * 1000;
    out << std::setw(11)
        << (valuesS.empty() ? 0.0 : *std::max_element(valuesS.begin(), valuesS.end())) * 1000
        << '\n';
}

} // namespace

void printServedSummary(std::ostream &out, const std::vector<ServedRequest> &served, int replicas)
{
    std::vector<double> ttft, tpot, latency, queueing;
    std::map<int, std::pair<int, int>> perReplica; // completed, failed
    std::map<std::string, int> failures;
    double firstArrivalS = 0;
    double lastFinishS = 0;
    long long outputTokens = 0;
    int completed = 0;
    for (const ServedRequest &s : served) {
        if (!s.completed) {
            ++perReplica[s.replica].second;
            ++failures[s.failure.empty() ? std::string("no record") : s.failure];
            continue;
        }
        ++perReplica[s.replica].first;
        ++completed;
        if (s.warmup)
            continue;
        ttft.push_back(s.firstTokenS - s.arrivalS);
        if (s.outputTokens > 1)
            tpot.push_back((s.finishS - s.firstTokenS) / (s.outputTokens - 1));
        latency.push_back(s.finishS - s.arrivalS);
        queueing.push_back(s.admittedS - s.arrivalS);
        firstArrivalS = latency.size() == 1 ? s.arrivalS : std::min(firstArrivalS, s.arrivalS);
        lastFinishS = std::max(lastFinishS, s.finishS);
        outputTokens += s.outputTokens;
    }
    out << "served " << completed << " of " << served.size() << " requests on " << replicas
        << " replicas\n";
    for (const auto &[replica, counts] : perReplica)
        out << "  replica " << replica << ": " << counts.first << " completed, " << counts.second
            << " failed\n";
    for (const auto &[why, count] : failures)
        out << "  failed (" << count << "): " << why << '\n';
    if (latency.empty())
        return;
    out << "  " << std::left << std::setw(26) << "ms (warm-up excluded)" << std::right
        << std::setw(11) << "p50" << std::setw(11) << "p90" << std::setw(11) << "p99"
        << std::setw(11) << "max" << '\n';
    printRow(out, "time to first token", ttft);
    printRow(out, "time per output token", tpot);
    printRow(out, "end-to-end latency", latency);
    printRow(out, "queueing delay", queueing);
    const double spanS = lastFinishS - firstArrivalS;
    if (spanS > 0)
        out << "  throughput: " << std::setprecision(2) << double(latency.size()) / spanS
            << " requests/s, " << double(outputTokens) / spanS << " output tokens/s\n";
}

} // namespace hetplan::cli
