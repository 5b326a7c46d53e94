#pragma once

#include "core/base/result.h"

#include <string>
#include <string_view>
#include <vector>

namespace hetplan {

// hetplan.hosts/1 (docs/formats.md, "Hosts"): for the SSH launcher, each machine of a cluster
// mapped to an SSH destination. Several machines may share one host; a machine maps to one host.
inline constexpr std::string_view kHostsFormat = "hetplan.hosts/1";
inline constexpr int kDefaultSshPort = 22;
inline constexpr std::string_view kDefaultWorker = "hetplan-worker";

struct HostEntry
{
    std::string machine; // a machine name of the cluster
    std::string host;    // name or address, as ssh takes it
    int port = kDefaultSshPort;
    std::string user;     // empty: the local user name, as ssh does
    std::string identity; // private key file ("~/" is the local home); empty: the SSH agent
    // On the host: where plans are uploaded and ranks run; relative (or "~/...") is under the
    // remote home.
    std::string workdir;
    // On the host: the executable to start, an absolute path or a name on the host's PATH.
    std::string worker = std::string(kDefaultWorker);

    bool operator==(const HostEntry &) const = default;
};

struct HostsFile
{
    std::vector<HostEntry> hosts;

    // Null when the machine has no entry.
    const HostEntry *find(std::string_view machine) const;
};

// "user@host:port" ("host:port" without a user): one login on one host. Rows of a hosts file
// with the same destination are one SSH connection.
std::string sshDestination(std::string_view user, std::string_view host, int port);

// Strict like the other readers (core/io/formats.h): errors name `source`, the JSON path and
// what would be valid. Includes checkHostRows.
Result<HostsFile> parseHosts(std::string_view text, std::string_view source);

// The hosts file at `path`, read and parsed (errors name it).
Result<HostsFile> loadHosts(const std::string &path);

// What no single row shows (docs/formats.md, "Hosts"): rows with one destination are one login,
// so they must agree on identity, workdir and worker. The error names `source`, both rows (by
// machine) and the field.
Status checkHostRows(const HostsFile &hosts, std::string_view source);

// Each row's identity (on this machine, "~/" its home) is a readable regular file: checked
// before any connection, since a FIFO there would hang the SSH library. Errors name `source`,
// the row (by machine) and the field.
Status checkIdentityFiles(const HostsFile &hosts, std::string_view source);
std::string writeHosts(const HostsFile &hosts);
// writeHosts, saved atomically (core/io/files.h).
Status saveHosts(const std::string &path, const HostsFile &hosts);

} // namespace hetplan
