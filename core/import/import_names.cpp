// Machine names from host names (docs/import.md, "Machine names"): readable, deterministic,
// and distinct for distinct hosts.
#include "core/import/import_evidence.h"

#include <algorithm>
#include <unordered_map>

namespace hetplan::importing {
namespace {

// The cluster file's limit on a name.
constexpr std::size_t kMaxMachineNameChars = 128;

std::vector<std::string> labelsOf(const std::string &host)
{
    if (firstLabel(host) == host)
        return {host};
    std::vector<std::string> labels;
    for (std::size_t start = 0;;) {
        const std::size_t dot = host.find('.', start);
        labels.push_back(host.substr(start, dot - start));
        if (dot == std::string::npos)
            return labels;
        start = dot + 1;
    }
}

std::string joined(const std::vector<std::string> &labels, std::size_t count)
{
    std::string out;
    for (std::size_t i = 0; i < count; ++i) {
        if (i > 0)
            out += '.';
        out += labels[i];
    }
    return out;
}

std::string renamed(const std::string &key, const std::unordered_map<std::string, std::string> &to)
{
    const auto it = to.find(key);
    return it == to.end() ? key : it->second;
}

// "A:3" with A renamed.
std::string renamedGpu(const std::string &gpu,
                       const std::unordered_map<std::string, std::string> &to)
{
    const std::size_t colon = gpu.find_last_of(':');
    return renamed(gpu.substr(0, colon), to) + gpu.substr(colon);
}

} // namespace

void nameMachines(Evidence &evidence)
{
    std::vector<MachineDraft> &machines = evidence.machines;
    const std::size_t n = machines.size();
    std::vector<std::vector<std::string>> labels(n);
    std::vector<std::size_t> depth(n, 1);
    for (std::size_t i = 0; i < n; ++i)
        labels[i] = labelsOf(machines[i].name);
    // More of the domain for the hosts whose names so far collide, until none does or no host
    // of a collision has more to give.
    for (bool grew = true; grew;) {
        grew = false;
        std::unordered_map<std::string, std::vector<std::size_t>> byName;
        for (std::size_t i = 0; i < n; ++i)
            byName[joined(labels[i], depth[i])].push_back(i);
        for (const auto &[name, same] : byName)
            if (same.size() > 1 || name.empty()) // ".x": more than its empty first label
                for (std::size_t i : same)
                    if (depth[i] < labels[i].size()) {
                        ++depth[i];
                        grew = true;
                    }
    }
    std::unordered_map<std::string, std::size_t> taken;
    std::vector<std::string> names(n);
    std::vector<std::string> hows(n);
    for (std::size_t i = 0; i < n; ++i) {
        std::string name = joined(labels[i], depth[i]);
        std::ranges::replace(name, ':', '-'); // a GPU is "machine:index"
        std::string how;
        if (name.empty()) {
            name = "host";
            how = "the host name is empty";
        } else if (depth[i] < labels[i].size()) {
            how = depth[i] == 1 ? "its first label"
                                : "the domain kept up to where it differs from another host's";
        }
        if (name.size() > kMaxMachineNameChars) {
            name.resize(kMaxMachineNameChars);
            how = "cut to " + std::to_string(kMaxMachineNameChars) + " characters";
        }
        names[i] = name;
        hows[i] = how;
        ++taken[name];
    }
    // Names still shared (hosts equal after the cut, an empty host): "-2", "-3", … in the
    // order the machines were met, the first keeping the name.
    std::unordered_map<std::string, int> used;
    for (std::size_t i = 0; i < n; ++i) {
        if (taken[names[i]] < 2 || used[names[i]]++ == 0)
            continue;
        const std::string base = names[i];
        for (int k = used[base];; ++k) {
            const std::string suffix = "-" + std::to_string(k);
            std::string candidate
                = base.substr(0, std::min(base.size(), kMaxMachineNameChars - suffix.size()));
            candidate += suffix;
            if (!taken.contains(candidate)) {
                names[i] = candidate;
                hows[i] += (hows[i].empty() ? "" : ", ") + ("\"" + suffix + "\" appended");
                hows[i] += " to tell it from another host's";
                taken[candidate] = 1;
                break;
            }
        }
    }
    std::unordered_map<std::string, std::string> to;
    for (std::size_t i = 0; i < n; ++i) {
        if (names[i] == machines[i].name)
            continue;
        std::string note = "machine " + names[i] + ": host \"" + machines[i].host + "\"";
        if (!hows[i].empty())
            note += ", " + hows[i];
        evidence.notes.push_back(note);
        to.emplace(machines[i].name, names[i]);
        machines[i].name = names[i];
    }
    if (to.empty())
        return;
    evidence.reindex();
    std::map<NamePair, PairDraft> gpuPairs;
    for (auto &[names2, pair] : evidence.gpuPairs)
        gpuPairs[sortedPair(renamedGpu(names2.first, to), renamedGpu(names2.second, to))]
            = std::move(pair);
    evidence.gpuPairs = std::move(gpuPairs);
    std::map<NamePair, PairDraft> machinePairs;
    for (auto &[names2, pair] : evidence.machinePairs)
        machinePairs[sortedPair(renamed(names2.first, to), renamed(names2.second, to))]
            = std::move(pair);
    evidence.machinePairs = std::move(machinePairs);
}

} // namespace hetplan::importing
