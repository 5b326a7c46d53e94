#pragma once

#include "core/base/result.h"
#include "core/model/backend_kind.h"
#include "runtime/comm/comm.h"
#include "runtime/worker/job.h"
#include "runtime/worker/stage_run.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hetplan::runtime {

// hetplan-worker's command line (docs/runtime.md, "hetplan-worker").
struct WorkerArgs
{
    JobSource job;
    int rank = 0;
    int world = 0;
    CommOptions comm;
    int iterations = 3;
    std::uint64_t seed = 0;
    std::string out;         // this rank's hetplan.measurement/1 file; empty: none
    std::string dumpWeights; // this rank's final weights; empty: none
    BackendKind backend = BackendKind::Gloo;
    std::optional<int> device; // the CUDA device; unset: the rank's local rank on its machine
    // NCCL reads its NIC list and socket interface once per process, so they are this
    // process's (NCCL_IB_HCA, NCCL_SOCKET_IFNAME), for the host it runs on; empty: NCCL's own.
    std::string ncclIbHca;
    std::string ncclSocketIfname;
    bool help = false;
    bool version = false; // print "hetplan-worker VERSION" (the launcher's preflight compares it)
};

inline constexpr const char *kWorkerUsage = R"(usage: hetplan-worker --version
       hetplan-worker --plan FILE --rank R --world N --rendezvous DIR|redis://HOST:PORT
         [--cluster NAME|FILE] [--model NAME|FILE] [--scale K] [--iterations I] [--seed S]
         [--listen-address ADDR] [--timeout-s T] [--out FILE] [--dump-weights FILE]
         [--backend gloo|cuda] [--device N] [--nccl-ib-hca LIST] [--nccl-socket-ifname IF]
One rank of a training plan: on the CPU with Gloo (the default), or with --backend cuda on a GPU
(device N, by default the rank's index among the ranks on its machine) with NCCL, whose
NCCL_IB_HCA and NCCL_SOCKET_IFNAME --nccl-ib-hca and --nccl-socket-ifname set for this process.
`hetplan-cli run` starts one per rank.
)";

// Errors name the option and what would be valid.
// The job's StageRun (stage_run.h), as every rank of it computes it.
StageRun stageRun(const Job &job, const WorkerArgs &args);

Result<WorkerArgs> parseWorkerArgs(const std::vector<std::string> &words);

// The command line that starts `executable` as the rank `args` describes: parseWorkerArgs
// reads it back to `args`. `hetplan-cli run` and the SSH launcher start ranks with it.
std::vector<std::string> workerCommandLine(const std::string &executable, const WorkerArgs &args);

} // namespace hetplan::runtime
