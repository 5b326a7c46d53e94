#pragma once

#include "core/base/result.h"
#include "runtime/comm/comm.h"

#include <string>
#include <vector>

namespace hetplan::runtime::probe {

// hetplan-probe's command line (docs/probe.md).
struct ProbeArgs
{
    int rank = 0;
    int world = 1;
    CommOptions comm;     // rendezvous needed when world > 1
    std::string hostName; // empty: this machine's host name
    std::string model = "llama2-7b";
    int microBatch = 1;
    int seqLen = 1024;
    int tp = 1;
    int repetitions = 10; // --repeat; --quick lowers the default to 3
    bool quick = false;
    int blasThreads = 1;
    int triadMiB = 0;     // each CPU triad array; 0: twice the last-level cache
    bool cpuOnly = false; // --no-gpu: probe the CPU even where a GPU is usable
    std::string out;      // empty: the probe file goes to standard output
    bool help = false;
};

inline constexpr const char *kProbeUsage
    = R"(usage: hetplan-probe [--out FILE] [--model NAME|FILE] [--micro-batch B] [--seq-len S]
         [--tp T] [--repeat N] [--quick] [--blas-threads K] [--triad-mib M] [--no-gpu]
         [--host-name NAME]
         [--rank R --world N --rendezvous DIR|redis://HOST:PORT] [--listen-address ADDR]
         [--timeout-s T]
Measures this host (GEMM throughput at the model's layer shapes, memory bandwidth, every GPU
and GPU pair where CUDA is usable) and, with several ranks, TCP bandwidth and latency between
every pair of ranks. Rank 0 writes one hetplan.probe/1 file for all of them.
)";

// Errors name the option and what would be valid.
Result<ProbeArgs> parseProbeArgs(const std::vector<std::string> &words);

} // namespace hetplan::runtime::probe
