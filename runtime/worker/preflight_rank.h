#pragma once

#include "runtime/worker/job.h"
#include "runtime/worker/preflight_links.h"
#include "runtime/worker/worker_args.h"

#include <ostream>

namespace hetplan::runtime {

// `hetplan-worker --preflight-s S`: over `links`, the communicators the plan's run opens with
// its own backend (Gloo's, or NCCL's with --backend cuda; preflight_links.h), runs every check
// of preflightChecks(job) this rank is a member of, in order, every rank starting each check
// together: the latency of a one-element operation, one untimed operation at the plan's size
// in the run's wire type, then timed ones until about S seconds have passed (the members stop
// together). Each operation is timed on the host's clock until the device is done with it, and
// bounded by --timeout-s, the hang guard. Every check's result, or its error, goes to `out` as
// a preflightLine naming the transport. After a failure (`opened` holds an error, or a
// check failed) the rank's later checks are reported as not run, and it stops: its peers then
// fail at once instead of waiting.
void runPreflightRank(const WorkerArgs &args, const Job &job, Result<PreflightLinks> opened,
                      std::ostream &out);

} // namespace hetplan::runtime
