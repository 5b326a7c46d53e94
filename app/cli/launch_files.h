#pragma once

// The local files `launch` and `probe --hosts` hand to the SSH launcher, checked before any host
// is contacted (docs/launcher.md).

#include "app/cli/args.h"
#include "core/base/result.h"
#include "core/io/hosts_json.h"

#include <string>

namespace hetplan::cli {

// --hosts FILE (required), read and checked: its rows and every row's identity file (errors name
// the file, the row's machine and the field).
Result<HostsFile> launchHostsFromArgs(const Args &args);

// --known-hosts FILE; absent: "" (the launcher's default). A file that exists must be a
// readable regular file: the SSH library opens it blocking, and a FIFO would hang the launch.
Result<std::string> knownHostsFromArgs(const Args &args);

} // namespace hetplan::cli
