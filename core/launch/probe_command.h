#pragma once

// hetplan-probe's command line as a typed value (docs/probe.md): the one writer (the launcher's
// probe job) and the one reader (hetplan-probe itself, and `hetplan-cli probe --hosts`, which
// checks the options it passes on before any host is contacted).

#include "core/base/command_options.h"
#include "core/base/result.h"
#include "core/launch/rank_endpoint.h"

#include <string>
#include <vector>

namespace hetplan {

struct ProbeCommand
{
    int rank = 0;
    int world = 1;
    RankEndpoint comm;    // the rendezvous is needed when world > 1
    std::string hostName; // empty: this machine's host name
    std::string model = "llama2-7b";
    int microBatch = 1;
    int seqLen = 1024;
    int tp = 1;
    int scale = 1;        // --scale K: the layer is timed on the model as `run --scale K` trains it
    int repetitions = 10; // --repeat; with --quick the reader's default is 3
    bool quick = false;
    int blasThreads = 1;
    int triadMiB = 0;     // each CPU triad array; 0: twice the last-level cache
    bool cpuOnly = false; // --no-gpu: probe the CPU even where a GPU is usable
    std::string out;      // empty: the probe file goes to standard output
};

// The options hetplan-probe declares, "help" among the switches.
const CommandOptions::Spec &probeOptionSpec();

// `executable` followed by the options of `command` that differ from the defaults;
// readProbeCommand reads them back.
std::vector<std::string> probeCommandLine(const std::string &executable,
                                          const ProbeCommand &command);

// Errors name the option and what would be valid.
Result<ProbeCommand> readProbeCommand(const CommandOptions &options);

} // namespace hetplan
