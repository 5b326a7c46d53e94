#pragma once

#include "core/launch/preflight_report.h"
#include "core/model/cluster.h"

#include <QStringList>

#include <map>
#include <string>
#include <vector>

namespace hetplan::gui {

// What a pre-flight found on one link of the cluster (docs/app-launch.md, "Pre-flight"): the
// worst verdict of the checks whose traffic crosses it.
struct LinkVerdict
{
    PreflightVerdict verdict = PreflightVerdict::Ok;
    double slowBy = 1;  // the largest ratio among its slow checks
    QStringList checks; // one line per check that crossed it: group and verdict
};

// Indexes into cluster.links of the widest path between two machines, the path the cost model
// charges between them (docs/cost-models.md); among equally wide paths, the one with the
// lowest latency. Empty for one machine, or when no path joins them.
std::vector<int> pathLinks(const Cluster &cluster, const std::string &machineA,
                           const std::string &machineB);

// The links a check's traffic crosses: a hop's path, or the paths between every two machines
// of an all-reduce's members, each link once, in ascending order.
std::vector<int> checkLinks(const Cluster &cluster, const PreflightRow &row);

// Per link index of `cluster`, what the report's checks found on it; links no check crossed
// are absent.
std::map<int, LinkVerdict> linkVerdicts(const Cluster &cluster, const PreflightReport &report);

// Hung and failed outrank slow, slow outranks ok.
int verdictSeverity(PreflightVerdict verdict);

} // namespace hetplan::gui
