#include "launch/hosts_mapping.h"

#include "runtime/launcher/ssh_session.h"

#include <QDir>
#include <QFile>

#include <map>
#include <sys/stat.h>
#include <unistd.h>

namespace hetplan::gui {

namespace {

std::string quoted(const std::string &value)
{
    std::string q = "\"";
    q += value;
    q += '"';
    return q;
}

// An identity must be a key ssh can read: a regular file this user may read. Only stat() and
// access() look at it, so a FIFO is reported instead of blocking the dialog.
std::string identityProblem(const std::string &identity)
{
    if (identity.empty())
        return {};
    std::string path = identity;
    if (path.rfind("~/", 0) == 0)
        path = QFile::encodeName(QDir::homePath()).toStdString() + path.substr(1);
    struct stat info = {};
    if (::stat(path.c_str(), &info) != 0)
        return "does not exist";
    if (S_ISDIR(info.st_mode))
        return "is a folder";
    if (!S_ISREG(info.st_mode))
        return "is not a regular file";
    if (::access(path.c_str(), R_OK) != 0)
        return "cannot be read";
    return {};
}

// The fields every row of one SSH destination must share: the launcher starts one job folder
// and one worker per destination (docs/app-launch.md, "Hosts").
struct SharedField
{
    const char *name;
    std::string HostEntry::*value;
};
constexpr SharedField kSharedFields[] = {{"identity", &HostEntry::identity},
                                         {"workdir", &HostEntry::workdir},
                                         {"worker", &HostEntry::worker}};

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
        if (const std::string problem = identityProblem(entry.identity); !problem.empty())
            return badInput(source + ": identity: " + quoted(entry.identity) + " " + problem
                            + "; valid: a readable private key file, or empty for the SSH agent");
    }
    std::map<std::string, const HostEntry *> firstOnDestination;
    for (const HostEntry &entry : hosts.hosts) {
        const std::string destination = destinationOf(sshTarget(entry));
        const auto [first, added] = firstOnDestination.try_emplace(destination, &entry);
        if (added)
            continue;
        for (const SharedField &field : kSharedFields) {
            const std::string &mine = entry.*field.value;
            const std::string &theirs = first->second->*field.value;
            if (mine == theirs)
                continue;
            std::string message = "machine " + entry.machine + ": " + field.name + ": ";
            message += quoted(mine) + " differs from " + quoted(theirs) + " of machine ";
            message += first->second->machine + ", which shares " + destination;
            message += "; valid: the same ";
            message += field.name;
            message += " on every row of one host";
            return badInput(message);
        }
    }
    return okStatus();
}

} // namespace hetplan::gui
