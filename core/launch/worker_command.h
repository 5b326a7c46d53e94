#pragma once

// hetplan-worker's command line as a typed value (docs/runtime.md, "hetplan-worker"): the one
// writer (`hetplan-cli run`, the SSH launcher, `hetplan-cli export --slurm`) and the one reader
// (hetplan-worker itself). It lives in core because the Slurm export (core/io) writes it too.

#include "core/base/command_options.h"
#include "core/base/result.h"
#include "core/launch/rank_endpoint.h"
#include "core/model/backend_kind.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hetplan {

// One rank of a training or serving plan. Defaults are the worker's own: an option left at its
// default is not written.
struct WorkerCommand
{
    std::string plan;                   // --plan FILE
    std::optional<std::string> cluster; // --cluster NAME|FILE; absent: the plan's
    std::optional<std::string> model;   // --model NAME|FILE; absent: the plan's
    int scale = 1;
    int rank = 0;
    int world = 0;
    RankEndpoint comm;
    int iterations = 3;
    std::uint64_t seed = 0;
    // Above 0: run the plan's pre-flight instead of training, each check for about this many
    // seconds (docs/launcher.md, "Pre-flight").
    double preflightS = 0;
    std::string out;         // this rank's hetplan.measurement/1 file; empty: none
    std::string dumpWeights; // this rank's final weights; empty: none
    BackendKind backend = BackendKind::Gloo;
    std::optional<int> device; // the CUDA device; unset: the rank's local rank on its machine
    // NCCL reads its NIC list and socket interface once per process, so they are this
    // process's (NCCL_IB_HCA, NCCL_SOCKET_IFNAME), for the host it runs on; empty: NCCL's own.
    std::string ncclIbHca;
    std::string ncclSocketIfname;
    // A serving plan's request stream (docs/runtime.md, "Serving runs"); every rank makes the
    // same one from these, the plan and --seed. requests 0: as many as arrive in durationS.
    int requests = 0;
    double durationS = 0;
    std::optional<double> rate; // requests per second; absent: the workload's request_rate
    std::string trace;          // arrivals and lengths from this file instead
    double temperature = 0;     // sampling temperature; 0: greedy
    std::string weights;        // a training run's --dump-weights folder; empty: the initial ones
};

// The options hetplan-worker declares, "help" and "version" among the switches.
const CommandOptions::Spec &workerOptionSpec();

// `executable` followed by the options of `command`; readWorkerCommand reads them back.
std::vector<std::string> workerCommandLine(const std::string &executable,
                                           const WorkerCommand &command);

// The same command as one line of shell for a script that supplies some values itself:
// `executable` and every value in `expressions` (option name → shell text, e.g. "rank" →
// "\"$RANK\"") are written as given, every other word quoted. Options named in `breakBefore`
// start a continued line.
std::string workerShellCommand(const std::string &executable, const WorkerCommand &command,
                               const std::map<std::string, std::string> &expressions,
                               const std::vector<std::string> &breakBefore = {});

// Errors name the option and what would be valid.
Result<WorkerCommand> readWorkerCommand(const CommandOptions &options);

} // namespace hetplan
