#include "launch/hosts_mapping.h"

namespace hetplan::gui {

namespace {

// Machine::host as the inspector takes it: "host" or "user@host".
HostEntry entryFromCanvas(const Machine &machine)
{
    HostEntry e;
    e.machine = machine.name;
    e.host = machine.host;
    if (const std::size_t at = e.host.find('@'); at != std::string::npos) {
        e.user = e.host.substr(0, at);
        e.host.erase(0, at + 1);
    }
    return e;
}

} // namespace

HostsFile hostsForCluster(const Cluster &cluster, const HostsFile &saved)
{
    HostsFile mapping;
    for (const Machine &m : cluster.machines) {
        const HostEntry *entry = saved.find(m.name);
        mapping.hosts.push_back(entry ? *entry : entryFromCanvas(m));
    }
    return mapping;
}

std::string unmappedMachines(const HostsFile &hosts, const Cluster &cluster)
{
    std::string names;
    for (const Machine &m : cluster.machines)
        if (!hosts.find(m.name))
            names += (names.empty() ? "" : ", ") + m.name;
    return names;
}

Status checkHostsForCluster(const HostsFile &hosts, const Cluster &cluster)
{
    if (const std::string missing = unmappedMachines(hosts, cluster); !missing.empty())
        return badInput("no host for machine " + missing
                        + "; valid: every machine of the cluster mapped to a host");
    // Each entry read back alone, as a file holding only it, so the message can name the
    // machine instead of a position in a list.
    for (const HostEntry &entry : hosts.hosts) {
        const std::string source = "machine " + entry.machine;
        auto read = parseHosts(writeHosts(HostsFile{{entry}}), source);
        if (!read) {
            std::string message = read.error().message;
            const std::string prefix = source + ": hosts[0].";
            if (message.rfind(prefix, 0) == 0)
                message = source + ": " + message.substr(prefix.size());
            return badInput(message);
        }
    }
    return okStatus();
}

} // namespace hetplan::gui
