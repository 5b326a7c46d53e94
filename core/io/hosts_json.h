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
    std::string workdir;  // on the host: where plans are uploaded and ranks run
    std::string worker = std::string(kDefaultWorker); // on the host: the executable to start

    bool operator==(const HostEntry &) const = default;
};

struct HostsFile
{
    std::vector<HostEntry> hosts;

    // Null when the machine has no entry.
    const HostEntry *find(std::string_view machine) const;
};

// Strict like the other readers (core/io/formats.h): errors name `source`, the JSON path and
// what would be valid.
Result<HostsFile> parseHosts(std::string_view text, std::string_view source);
std::string writeHosts(const HostsFile &hosts);
// writeHosts, saved atomically (core/io/files.h).
Status saveHosts(const std::string &path, const HostsFile &hosts);

} // namespace hetplan
