#pragma once

#include <string>

namespace hetplan::launch {

// The few shell commands a job runs on its hosts (docs/launcher.md, "Jobs"); everything else
// (the ranks, their stop) is the host agent's, spoken in frames over its channel.

// The job's folder on a host: `workdir/jobId` (a relative workdir, or one starting with "~/",
// is under the remote home).
std::string jobDirectory(const std::string &workdir, const std::string &jobId);

// Creates the job folder, mode 0700 (only the SSH user may enter it: it holds the ranks' store
// socket), under `workdir` made as needed; refuses a folder that already exists, so the job's
// folder is always its own. Prints the folder's absolute path.
std::string makeJobFolderCommand(const std::string &jobDir);

// Starts the host's agent in the job folder: `cd JOBDIR && exec WORKER agent`.
std::string agentCommand(const std::string &jobDir, const std::string &worker);

// Where a host's agent did not finish (it was stopped, or is wedged): kills every process of
// the user whose working folder is the job folder (`jobDir`, absolute: the agent and its ranks
// run there), then removes the folder.
std::string stopJobCommand(const std::string &jobDir);

} // namespace hetplan::launch
