#pragma once

#include <string>
#include <vector>

namespace hetplan::launch {

// The shell commands a job runs on its hosts (docs/launcher.md, "Jobs"). Each process the job
// starts runs in its own session and process group (`setsid`) and writes its group's id to
// `<name>.pgid` in the job folder, so a later command on another channel can stop it: closing
// a channel does not, and OpenSSH 9 refuses signal requests for root logins.

// The job's folder on a host: `workdir/jobId` (a relative workdir, or one starting with "~/",
// is under the remote home).
std::string jobDirectory(const std::string &workdir, const std::string &jobId);

// Starts `argv` with `environment` ("NAME=value") in its own process group inside `jobDir`,
// recording the group in `<groupName>.pgid`. The command's shell waits for it, so the channel
// stays open until the process ends and then carries its exit status (128 + N for signal N).
std::string groupCommand(const std::string &jobDir, const std::string &groupName,
                         const std::vector<std::string> &environment,
                         const std::vector<std::string> &argv);

// A Redis server for the job's rendezvous, bound to `address`:`port` only, without persistence
// (nothing of a job outlives it). Prints "Ready to accept connections" once it listens.
std::string redisCommand(const std::string &jobDir, const std::string &address, int port);

// Stops every process group recorded in `jobDir`: TERM, then KILL to those still alive after
// `graceS`. Waits up to a second for `expectedGroups` records first, so a process started a
// moment ago is not missed. Prints "stopped" when TERM ended them all, else "killed N" (the
// groups that got KILL).
std::string stopCommand(const std::string &jobDir, int expectedGroups, double graceS);

// Lists the process groups recorded in `jobDir` that still have a process, one per line.
std::string aliveCommand(const std::string &jobDir);

std::string makeDirectoryCommand(const std::string &path);
std::string removeDirectoryCommand(const std::string &path);

} // namespace hetplan::launch
