#pragma once

// The checks of a plan's pre-flight (docs/launcher.md, "Pre-flight"): one per communicator the
// plan's run opens (each TP group, each gradient group) and two per pipeline hop (one per
// direction), each at the plan's own message size, with what the `hetplan` cost model assumes
// for it. hetplan-worker runs them; the launcher compares their results with the assumptions.
// Both build the list from the same compiled program, so they agree on it check by check.

#include "runtime/worker/gradient_bucket.h"
#include "runtime/worker/job.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hetplan::runtime {

struct PreflightCheck
{
    std::string group; // the program's group key (program.h, Group::key)
    GroupKind kind = GroupKind::TensorParallel;
    std::vector<int> members; // world ranks, ascending
    // A hop's direction, world ranks; both -1 for an all-reduce.
    int from = -1;
    int to = -1;
    // One message as the plan's run sends it: a micro-batch's activation rows for a hop, one
    // TP all-reduce of the rows, one gradient bucket.
    double messageBytes = 0;
    // The `hetplan` model's reading of the group's links (hetplan_comm.h): a hop's effective
    // pair bandwidth and latency; an all-reduce's bus bandwidth (the slowest pair, times the
    // ring's scale for gradient groups) and the latency of a one-element ring all-reduce.
    double assumedBytesPerS = 0;
    double assumedLatencyS = 0;

    bool isHop() const { return from >= 0; }
};

// Every check of `job`, in the order every rank runs them. The job may be compiled for one
// rank only: groups and the rank's own gradient ops are all it reads.
std::vector<PreflightCheck> preflightChecks(const Job &job);

// What one member of a check reports: the timed operations, or why there are none.
struct PreflightResult
{
    int check = 0;
    int rank = 0;
    int ops = 0;
    double seconds = 0; // the `ops` operations together
    std::optional<double> latencyS;
    std::string error; // empty when measured
    // What the check ran over: "gloo" (TCP) or "nccl"; empty where the line did not say.
    std::string transport;
};

// One result as a line on the rank's stdout, "hetplan-preflight check=3 rank=1 transport=nccl
// ops=12 seconds=0.48 latency_s=0.0002" or "... error=TEXT", and back (a line without
// `transport`, as ranks before it wrote, reads with it empty). Not a result line: nullopt.
std::string preflightLine(const PreflightResult &result);
std::optional<PreflightResult> parsePreflightLine(std::string_view line);

} // namespace hetplan::runtime
