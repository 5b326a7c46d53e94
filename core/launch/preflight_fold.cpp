#include "core/launch/preflight_fold.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>

namespace hetplan {

namespace {

std::string machineOf(const std::string &gpu)
{
    return gpu.substr(0, gpu.rfind(':'));
}

struct PairFigures
{
    double bandwidthGBps = 0;
    double latencyUs = 0;
    std::string how;
};

std::string howText(const PreflightRow &row)
{
    char text[160];
    std::snprintf(text, sizeof text, "pre-flight %s %s: %d operations of %.0f bytes in %.3g s",
                  row.kind.c_str(), row.group.c_str(), row.ops, row.messageBytes, row.seconds);
    return text;
}

void record(Cluster &cluster, const std::string &field, const std::string &how)
{
    auto &figures = cluster.origin.figures;
    figures.erase(std::remove_if(figures.begin(), figures.end(),
                                 [&](const MeasuredFigure &f) { return f.field == field; }),
                  figures.end());
    figures.push_back({field, kPreflightSource, how});
}

} // namespace

int foldPreflight(Cluster &cluster, const PreflightReport &report)
{
    // Per unordered GPU pair: the slowest measured figures.
    std::map<std::pair<std::string, std::string>, PairFigures> pairs;
    for (const PreflightRow &row : report.rows) {
        if (!row.achievedBytesPerS || !row.latencyS)
            continue;
        std::string a = row.fromGpu;
        std::string b = row.toGpu;
        if (!row.isHop()) {
            if (row.members.size() != 2)
                continue;
            a = row.members[0].gpu;
            b = row.members[1].gpu;
        }
        if (machineOf(a) == machineOf(b))
            continue;
        if (b < a)
            std::swap(a, b);
        const double gbps = *row.achievedBytesPerS / 1e9;
        const double latencyUs = *row.latencyS * 1e6;
        auto [it, added] = pairs.try_emplace({a, b}, PairFigures{gbps, latencyUs, howText(row)});
        if (!added) {
            if (gbps < it->second.bandwidthGBps)
                it->second.how = howText(row);
            it->second.bandwidthGBps = std::min(it->second.bandwidthGBps, gbps);
            it->second.latencyUs = std::max(it->second.latencyUs, latencyUs);
        }
    }
    auto &overrides = cluster.pairOverrides;
    for (const auto &[names, figures] : pairs) {
        const std::string &a = names.first;
        const std::string &b = names.second;
        overrides.erase(std::remove_if(overrides.begin(), overrides.end(),
                                       [&](const PairOverride &o) {
                                           return (o.a == a && o.b == b) || (o.a == b && o.b == a);
                                       }),
                        overrides.end());
        overrides.push_back({a, b, figures.bandwidthGBps, figures.latencyUs});
        const std::string path = "/pair_overrides/" + a + "/" + b + "/";
        record(cluster, path + "bandwidth_GBps", figures.how);
        record(cluster, path + "latency_us", figures.how);
    }
    auto &sources = cluster.origin.sources;
    if (!pairs.empty()
        && std::find(sources.begin(), sources.end(), kPreflightSource) == sources.end())
        sources.emplace_back(kPreflightSource);
    return int(pairs.size());
}

} // namespace hetplan
