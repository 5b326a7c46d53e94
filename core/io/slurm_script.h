#pragma once

// `hetplan-cli export --slurm` (docs/export.md, "Slurm"): an sbatch script that starts a plan's
// ranks with srun, one task per rank, on the nodes the plan's machines map to.

#include "core/base/result.h"
#include "core/launch/worker_command.h"
#include "core/plan/rank_layout.h"

#include <map>
#include <string>
#include <vector>

namespace hetplan {

struct SlurmOptions
{
    std::string jobName = "hetplan";
    int masterPort = 29500; // the default of MASTER_PORT; the environment at submission wins
    // What every task runs, as one line of shell, with RANK, WORLD_SIZE, LOCAL_RANK,
    // LOCAL_WORLD_SIZE, MASTER_ADDR and MASTER_PORT set; empty: hetplan-worker on `plan`.
    std::string command;
    // For hetplan-worker: its command, with the plan file and the cluster and model the plan
    // names as every node reads them (absolute paths on a shared file system, or bundled
    // names). The script supplies the rank, world, device, rendezvous, address and output.
    // Default: on the GPUs (--backend cuda), as the script asks Slurm for one GPU per task.
    WorkerCommand worker = [] {
        WorkerCommand onGpus;
        onGpus.backend = BackendKind::Cuda;
        return onGpus;
    }();
    std::string workerExecutable = "hetplan-worker";
    // Per host, the worker executable there (a hosts file's `worker`); absent: `worker`.
    std::map<std::string, std::string> workerOfHost;
};

// Refuses hosts that are not Slurm node names (letters, digits, '.', '_', '-') and a command
// of more than one line, naming the machine or the option.
Result<std::string> slurmScript(const std::vector<RankPlacement> &layout,
                                const SlurmOptions &options);
} // namespace hetplan
