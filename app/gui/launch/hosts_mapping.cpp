#include "launch/hosts_mapping.h"

#include "runtime/launcher/ssh_session.h"

#include <QDir>
#include <QFile>

#include <regex>

namespace hetplan::gui {

namespace {

// The hosts file's checks (core/io/hosts_json.h) name a row as "SOURCE: hosts[N].FIELD
// (machine M): "; the dialog has no file or row numbers, so it names the machine and the
// field: "machine M: FIELD: ".
std::string rowMessage(const std::string &message)
{
    static const std::regex row(R"(^[^:]*: hosts\[\d+\]\.([a-z_]+) \(machine ([^)]*)\): )");
    std::smatch m;
    if (!std::regex_search(message, m, row))
        return message;
    static const std::regex otherRow(R"( \(hosts\[\d+\]\))");
    return "machine " + m[2].str() + ": " + m[1].str() + ": "
           + std::regex_replace(m.suffix().str(), otherRow, "");
}

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
    // Each entry read back alone, as a file holding only it, so its problems come before
    // those between rows; then the identity files and the rows sharing a login, as the
    // launcher checks them.
    const char *source = "hosts";
    for (const HostEntry &entry : hosts.hosts)
        if (auto read = parseHosts(writeHosts(HostsFile{{entry}}), source); !read)
            return badInput(rowMessage(read.error().message));
    for (const Status &s : {checkIdentityFiles(hosts, source), checkHostRows(hosts, source)})
        if (!s)
            return badInput(rowMessage(s.error().message));
    return okStatus();
}

} // namespace hetplan::gui
