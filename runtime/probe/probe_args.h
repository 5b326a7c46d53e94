#pragma once

#include "core/base/result.h"
#include "core/launch/probe_command.h"

#include <string>
#include <vector>

namespace hetplan::runtime::probe {

// hetplan-probe's command line (docs/probe.md): core's ProbeCommand, which the launcher's probe
// job writes, plus --help.
struct ProbeArgs : ProbeCommand
{
    bool help = false;
};

inline constexpr const char *kProbeUsage
    = R"(usage: hetplan-probe [--out FILE] [--model NAME|FILE] [--micro-batch B] [--seq-len S]
         [--tp T] [--scale K] [--repeat N] [--quick] [--blas-threads K] [--triad-mib M]
         [--no-gpu] [--host-name NAME]
         [--rank R --world N --rendezvous DIR|redis://HOST:PORT] [--listen-address ADDR]
         [--timeout-s T]
Measures this host (GEMM throughput at the model's layer shapes, memory bandwidth, on a CPU
host one layer of the model as `run --scale K` trains it, every GPU and GPU pair where CUDA is
usable) and, with several ranks, TCP bandwidth and latency between
every pair of ranks. Rank 0 writes one hetplan.probe/1 file for all of them.
)";

// Errors name the option and what would be valid (core's readProbeCommand).
Result<ProbeArgs> parseProbeArgs(const std::vector<std::string> &words);

} // namespace hetplan::runtime::probe
