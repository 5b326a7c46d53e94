#pragma once

// A plan's pre-flight across its hosts (docs/launcher.md, "Pre-flight"): the same preflight,
// agents and rendezvous as a launch, with every rank running `hetplan-worker --preflight-s`
// instead of training, and the report built from what each rank tells.

#include "core/base/result.h"
#include "core/launch/preflight_report.h"
#include "runtime/launcher/launch_job.h"

namespace hetplan {

struct PreflightOptions
{
    double checkS = 1; // each check's timed operations take about this long
    // The hang guard: how long the launcher waits for a silent agent before it calls its host
    // hung; every operation of a rank, its rendezvous included, is bounded by half of it.
    double hangGuardS = 10;
};

// Agents send a heartbeat every 2 s: a shorter guard would call a healthy host hung.
inline constexpr double kMinHangGuardS = 4;

// Runs the pre-flight of `spec`'s plan through `job` (its cancel() stops it) and reports every
// check. A check whose members did not all answer is Hung, naming them; one a member could not
// run is Failed with the member's error; the others are judged against the model's assumption.
// Whatever the outcome, every agent and rank is stopped and the job folders removed before it
// returns (LaunchJob::run). An Error only when nothing could be checked: a bad plan or hosts
// file, a host that failed preflight, Cancel.
Result<PreflightReport> runPreflight(LaunchJob &job, const LaunchSpec &spec,
                                     const PreflightOptions &options, const LaunchSink &sink);

} // namespace hetplan
