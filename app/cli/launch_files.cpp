#include "app/cli/launch_files.h"

#include "core/io/files.h"

#include <sys/stat.h>

namespace hetplan::cli {

Result<HostsFile> launchHostsFromArgs(const Args &args)
{
    auto path = args.required("hosts");
    if (!path)
        return path.error();
    auto hosts = loadHosts(*path);
    if (!hosts)
        return hosts.error();
    if (Status identities = checkIdentityFiles(*hosts, *path); !identities)
        return identities.error();
    return hosts;
}

Result<std::string> knownHostsFromArgs(const Args &args)
{
    const std::string path = args.value("known-hosts").value_or("");
    struct stat info
    {
    };
    // A file that does not exist yet is the launcher's to report (or to create, for a new key).
    if (path.empty() || ::stat(path.c_str(), &info) != 0)
        return path;
    if (Status readable = checkReadableFile(path); !readable)
        return badInput("--known-hosts " + readable.error().message
                        + "; valid: a known_hosts file, as ssh writes it");
    return path;
}

} // namespace hetplan::cli
