#pragma once

#include "core/base/result.h"
#include "core/launch/worker_command.h"
#include "runtime/worker/job.h"
#include "runtime/worker/stage_run.h"

#include <string>
#include <vector>

namespace hetplan::runtime {

// hetplan-worker's command line (docs/runtime.md, "hetplan-worker"): core's WorkerCommand,
// which every starter of ranks writes, plus the two requests that start no rank.
struct WorkerArgs : WorkerCommand
{
    bool help = false;
    bool version = false; // print "hetplan-worker VERSION" (the launcher's preflight compares it)
};

inline constexpr const char *kWorkerUsage = R"(usage: hetplan-worker --version
       hetplan-worker agent
       hetplan-worker --plan FILE --rank R --world N --rendezvous DIR|redis://HOST:PORT|unix:PATH
         [--cluster NAME|FILE] [--model NAME|FILE] [--scale K] [--iterations I] [--seed S]
         [--listen-address ADDR] [--timeout-s T] [--out FILE] [--dump-weights FILE]
         [--backend gloo|cuda] [--device N] [--nccl-ib-hca LIST] [--nccl-socket-ifname IF]
         [--preflight-s S]
         [--requests N | --duration-s S] [--rate R] [--trace FILE] [--temperature T]
         [--weights DIR]
One rank of a training plan: on the CPU with Gloo (the default), or with --backend cuda on a GPU
(device N, by default the rank's index among the ranks on its machine) with NCCL, whose
NCCL_IB_HCA and NCCL_SOCKET_IFNAME --nccl-ib-hca and --nccl-socket-ifname set for this process.
With --preflight-s, the rank runs the plan's pre-flight over its backend's communicators (Gloo,
or NCCL with --backend cuda) instead of training, each check for about S seconds, and prints a
result line per check (docs/launcher.md, "Pre-flight").
`hetplan-cli run` starts one per rank; `agent` is the host agent the SSH launcher starts per host.
A serving plan's rank serves the request stream the serving options describe, on either backend.
)";

// The job's StageRun (stage_run.h), as every rank of it computes it.
StageRun stageRun(const Job &job, const WorkerCommand &command);

// The job a worker command names.
JobSource jobSource(const WorkerCommand &command);

// Errors name the option and what would be valid (core's readWorkerCommand).
Result<WorkerArgs> parseWorkerArgs(const std::vector<std::string> &words);

} // namespace hetplan::runtime
