#pragma once

// hetplan-worker's serving role (docs/runtime.md, "Serving runs"): one rank of a serving plan,
// running runtime/serve's engine over Gloo on a stage shard on the CPU (--backend gloo) or on
// the GPU (--backend cuda, its TP all-reduces over NCCL). The first stage's TP leader of each
// replica serves the requests the stream assigns to it and writes their records to --out.

#include "core/base/result.h"
#include "runtime/worker/job.h"
#include "runtime/worker/worker_args.h"

#include <stop_token>

namespace hetplan::runtime {

// Returns when the replica is done: an error when this rank or a peer failed (after the
// scheduler has written its records, failed requests included).
Status serveJobRank(const WorkerArgs &args, const Job &job, const std::stop_token &stop);

} // namespace hetplan::runtime
