#include "canvas/link_verdicts.h"

#include "canvas/canvas_style.h"

#include <algorithm>
#include <limits>
#include <set>
#include <unordered_map>

namespace hetplan::gui {

namespace {

std::string machineOf(const std::string &gpu)
{
    return gpu.substr(0, gpu.rfind(':'));
}

// "hop/p0/s0-s1/r0-r0: slow by 9.6× (0.021 GB/s achieved, 0.2 GB/s assumed)"
QString checkLine(const PreflightRow &row)
{
    QString group = QString::fromStdString(row.group);
    switch (row.verdict) {
    case PreflightVerdict::Ok:
        return CanvasStyle::tr("%1: ok").arg(group);
    case PreflightVerdict::Slow:
        return CanvasStyle::tr("%1: slow by %2 (%3 achieved, %4 assumed)")
            .arg(group, CanvasStyle::ratioText(row.slowBy),
                 CanvasStyle::bandwidthText(row.achievedBytesPerS.value_or(0) / 1e9),
                 CanvasStyle::bandwidthText(row.assumedBytesPerS / 1e9));
    case PreflightVerdict::Hung:
        return CanvasStyle::tr("%1: hung: %2").arg(group, QString::fromStdString(row.detail));
    case PreflightVerdict::Failed:
        return CanvasStyle::tr("%1: failed: %2").arg(group, QString::fromStdString(row.detail));
    }
    return group;
}

} // namespace

int verdictSeverity(PreflightVerdict verdict)
{
    switch (verdict) {
    case PreflightVerdict::Ok:
        return 0;
    case PreflightVerdict::Slow:
        return 1;
    case PreflightVerdict::Hung:
    case PreflightVerdict::Failed:
        return 2;
    }
    return 2;
}

std::vector<int> pathLinks(const Cluster &cluster, const std::string &machineA,
                           const std::string &machineB)
{
    if (machineA == machineB)
        return {};
    // Widest-path Dijkstra over machines and switches, ties to the lower latency; each node
    // remembers the link it was reached by.
    struct Label
    {
        double widthGBps = 0;
        double latencyUs = std::numeric_limits<double>::infinity();
        int via = -1;
        bool done = false;
    };
    std::unordered_map<std::string, Label> labels;
    labels[machineA] = {std::numeric_limits<double>::infinity(), 0, -1, false};
    for (;;) {
        std::string node;
        const Label *best = nullptr;
        for (const auto &[name, label] : labels)
            if (!label.done && label.widthGBps > 0
                && (!best || label.widthGBps > best->widthGBps
                    || (label.widthGBps == best->widthGBps && label.latencyUs < best->latencyUs))) {
                node = name;
                best = &label;
            }
        if (!best || node == machineB)
            break;
        const Label from = *best;
        labels[node].done = true;
        for (std::size_t i = 0; i < cluster.links.size(); ++i) {
            const Link &link = cluster.links[i];
            const std::string *other = link.a == node   ? &link.b
                                       : link.b == node ? &link.a
                                                        : nullptr;
            if (!other)
                continue;
            Label &next = labels[*other];
            const double width = std::min(from.widthGBps, link.bandwidthGBps);
            const double latency = from.latencyUs + link.latencyUs;
            if (!next.done
                && (width > next.widthGBps
                    || (width == next.widthGBps && latency < next.latencyUs)))
                next = {width, latency, int(i), false};
        }
    }
    std::vector<int> path;
    const auto end = labels.find(machineB);
    if (end == labels.end() || end->second.via < 0)
        return path;
    std::string node = machineB;
    while (node != machineA) {
        const int via = labels[node].via;
        if (via < 0 || path.size() > cluster.links.size())
            return {};
        path.push_back(via);
        const Link &link = cluster.links[std::size_t(via)];
        node = link.a == node ? link.b : link.a;
    }
    std::reverse(path.begin(), path.end());
    return path;
}

std::vector<int> checkLinks(const Cluster &cluster, const PreflightRow &row)
{
    std::vector<std::string> machines;
    if (row.isHop()) {
        machines = {machineOf(row.fromGpu), machineOf(row.toGpu)};
    } else {
        for (const PreflightMember &m : row.members)
            machines.push_back(machineOf(m.gpu));
    }
    std::set<int> links;
    for (std::size_t i = 0; i < machines.size(); ++i)
        for (std::size_t j = i + 1; j < machines.size(); ++j)
            for (int link : pathLinks(cluster, machines[i], machines[j]))
                links.insert(link);
    return {links.begin(), links.end()};
}

std::map<int, LinkVerdict> linkVerdicts(const Cluster &cluster, const PreflightReport &report)
{
    std::map<int, LinkVerdict> verdicts;
    for (const PreflightRow &row : report.rows) {
        for (int link : checkLinks(cluster, row)) {
            auto [it, added] = verdicts.try_emplace(link);
            LinkVerdict &v = it->second;
            if (added || verdictSeverity(row.verdict) > verdictSeverity(v.verdict))
                v.verdict = row.verdict;
            if (row.verdict == PreflightVerdict::Slow)
                v.slowBy = std::max(v.slowBy, row.slowBy);
            v.checks.push_back(checkLine(row));
        }
    }
    return verdicts;
}

} // namespace hetplan::gui
