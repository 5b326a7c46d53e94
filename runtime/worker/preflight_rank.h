#pragma once

#include "runtime/worker/job.h"
#include "runtime/worker/worker_args.h"

#include <ostream>

namespace hetplan::runtime {

// `hetplan-worker --preflight-s S`: opens exactly the communicators the plan's run opens
// (Executor::groupsToConnect, over Gloo) and runs every check of preflightChecks(job) this rank
// is a member of, in order, every rank starting each check together (a one-element all-reduce
// over all ranks): the latency of a one-element operation, one untimed operation at
// the plan's size, then as many timed ones as fit in about S seconds (the members agree on the
// count). Each operation is bounded by --timeout-s, the hang guard. Every check's result, or
// its error, goes to `out` as a preflightLine. After a failure the rank's later checks are
// reported as not run, and it stops: its peers then fail at once instead of waiting.
void runPreflightRank(const WorkerArgs &args, const Job &job, std::ostream &out);

} // namespace hetplan::runtime
