#pragma once

// `hetplan-cli launch` of a serving plan (docs/launcher.md, "Serving jobs"): the replicas serve
// the same stream `run` serves, on the hosts, through the same job as training; their records
// come back over the agent channel and end as `run`'s do (app/cli/served_print.h).

#include "app/cli/args.h"
#include "runtime/launcher/launch_job.h"
#include "runtime/worker/job.h"

namespace hetplan::cli {

// The serving options `launch` takes beside training's (served_print.h reads them).
inline constexpr const char *kServeOptionNames[]
    = {"requests", "duration", "rate", "trace", "temperature"};

// Runs the job, blocking; Ctrl-C cancels it. Returns the exit code: 0; 1 when a rank or host
// failed (the measurement is still written); 2 for bad input; 128 + the signal when one
// cancelled it.
int launchServing(const Args &args, LaunchSpec launch, const runtime::Job &job);

// A launch that failed before its ranks started, as `launch` reports it.
int launchFailed(Error error, const LaunchSpec &launch);

} // namespace hetplan::cli
