#include "model/cluster_names.h"

#include <algorithm>
#include <cctype>

namespace hetplan::gui {

namespace {

bool nameTaken(const Cluster &cluster, const std::string &name)
{
    const auto same = [&](const auto &node) { return node.name == name; };
    return std::any_of(cluster.machines.begin(), cluster.machines.end(), same)
           || std::any_of(cluster.switches.begin(), cluster.switches.end(), same);
}

// "B-3" → "B": copies of a copy are numbered after the original.
std::string stemOf(const std::string &name)
{
    const std::size_t dash = name.rfind('-');
    if (dash == std::string::npos || dash == 0 || dash + 1 == name.size())
        return name;
    if (name.find_first_not_of("0123456789", dash + 1) != std::string::npos)
        return name;
    return name.substr(0, dash);
}

} // namespace

std::string uniqueNameIn(const Cluster &cluster, const std::string &stem)
{
    if (!nameTaken(cluster, stem))
        return stem;
    const std::string base = stemOf(stem);
    for (int n = 2;; ++n) {
        std::string candidate = base + "-" + std::to_string(n);
        if (!nameTaken(cluster, candidate))
            return candidate;
    }
}

std::string machineOfGpu(const std::string &gpu)
{
    const std::size_t colon = gpu.rfind(':');
    return colon == std::string::npos ? gpu : gpu.substr(0, colon);
}

std::string renamedGpu(const std::string &gpu, const std::string &from, const std::string &to)
{
    if (machineOfGpu(gpu) != from)
        return gpu;
    return to + gpu.substr(from.size());
}

bool sameTypeName(const std::string &a, const std::string &b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
        return std::tolower(static_cast<unsigned char>(x))
               == std::tolower(static_cast<unsigned char>(y));
    });
}

void renameNode(Cluster &cluster, const std::string &from, const std::string &to)
{
    if (from == to)
        return;
    for (Link &l : cluster.links) {
        if (l.a == from)
            l.a = to;
        if (l.b == from)
            l.b = to;
    }
    for (PairOverride &p : cluster.pairOverrides) {
        p.a = renamedGpu(p.a, from, to);
        p.b = renamedGpu(p.b, from, to);
    }
}

} // namespace hetplan::gui
