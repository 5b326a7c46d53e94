#pragma once

// What a rank's pre-flight runs its checks over (docs/launcher.md, "Pre-flight"): the backend
// the plan's run uses, with the communicators that run opens, connected by the same code.

#include "runtime/comm/comm.h"
#include "runtime/worker/backend.h"
#include "runtime/worker/job.h"
#include "runtime/worker/worker_args.h"

#include <functional>
#include <memory>
#include <string>

namespace hetplan::runtime {

struct PreflightLinks
{
    // The backend's transport as the result lines name it: "gloo" (TCP) or "nccl".
    std::string transport;
    std::unique_ptr<Comm> comm; // Gloo's groups; declared first, so it outlives the backend
    std::unique_ptr<Backend> backend;
    // Returns once every rank has called it, waiting up to `timeoutS` instead of --timeout-s:
    // the start of each check, which a rank outside the previous check may reach long before
    // that check's members.
    std::function<Status(double timeoutS)> everyRank;
};

// --backend gloo: Gloo groups on host floats (Executor::groupsToConnect).
Result<PreflightLinks> openGlooPreflight(const WorkerArgs &args, const Job &job);
// --backend cuda: the CUDA backend's NCCL communicators on device memory, as openGpuRank opens
// them (gpu_rank.h), without the model. Built without CUDA: an error that says so.
Result<PreflightLinks> openNcclPreflight(const WorkerArgs &args, const Job &job);

} // namespace hetplan::runtime
