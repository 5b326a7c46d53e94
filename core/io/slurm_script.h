#pragma once

// `hetplan-cli export --slurm` (docs/export.md, "Slurm"): an sbatch script that starts a plan's
// ranks with srun, one task per rank, on the nodes the plan's machines map to.

#include "core/base/result.h"
#include "core/model/backend_kind.h"
#include "core/plan/rank_layout.h"

#include <map>
#include <optional>
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
    // For hetplan-worker: the plan file and the cluster and model the plan names, as every
    // node reads them (absolute paths on a shared file system, or bundled names).
    std::string plan;
    std::optional<std::string> cluster;
    std::optional<std::string> model;
    std::string worker = "hetplan-worker";
    BackendKind backend = BackendKind::Cuda; // hetplan-worker --backend
    int scale = 1;                           // hetplan-worker --scale
    int iterations = 0;                      // hetplan-worker --iterations; 0: the worker's default
    // Per host, the worker executable there (a hosts file's `worker`); absent: `worker`.
    std::map<std::string, std::string> workerOfHost;
};

// Refuses hosts that are not Slurm node names (letters, digits, '.', '_', '-') and a command
// of more than one line, naming the machine or the option.
Result<std::string> slurmScript(const std::vector<RankPlacement> &layout,
                                const SlurmOptions &options);
} // namespace hetplan
