#pragma once

// NVIDIA nccl-tests' text output (all_reduce_perf, all_gather_perf, sendrecv_perf, …), as
// docs/import.md describes it: "#" comment lines with the devices of every rank, a column
// header, one row per message size with an out-of-place and an in-place group of time, algbw
// and busbw. Columns are found by the header's names, so old logs (no `root`, `error` instead
// of `#wrong`) and extra columns (`-I` statistics, timestamps) read the same.

#include "core/base/result.h"

#include <string>
#include <string_view>
#include <vector>

namespace hetplan {

enum class NcclCollective {
    AllReduce,
    AllGather,
    ReduceScatter,
    Broadcast,
    Reduce,
    AllToAll,
    SendRecv,
    Gather,
    Scatter,
};

// "#  Rank  3 Group  0 Pid  1234 on node-b device  1 [0000:16:00] NVIDIA H100 80GB HBM3"
struct NcclRank
{
    int rank = 0;
    std::string host; // as printed: the whole host name
    int device = 0;   // CUDA device index on that host
    std::string deviceName;
    int line = 0; // 1-based, for messages
};

// One message size: the out-of-place group, and the in-place one where the log has it.
struct NcclRow
{
    double bytes = 0;
    double timeUs = 0;
    double algBwGBps = 0;
    double busBwGBps = 0;
    bool hasInPlace = false;
    double inPlaceTimeUs = 0;
    double inPlaceBusBwGBps = 0;
    int line = 0;
};

struct NcclTestsLog
{
    NcclCollective collective = NcclCollective::AllReduce;
    std::string collectiveName; // "all_reduce"
    std::vector<NcclRank> ranks;
    std::vector<NcclRow> rows; // in the log's order
};

// Errors name `source`, the line and what would be valid there.
Result<NcclTestsLog> parseNcclTests(std::string_view text, std::string_view source);

// Whether `text` looks like nccl-tests output (for telling file kinds apart).
bool looksLikeNcclTests(std::string_view text);

// busBw = algBw × this factor for `ranks` ranks (nccl-tests' doc/PERFORMANCE.md): all-reduce
// 2(n−1)/n; all-gather, reduce-scatter and all-to-all (n−1)/n; broadcast, reduce, send/recv 1.
double busBwFactor(NcclCollective collective, int ranks);

// Sequential ring steps one collective of `ranks` ranks takes, each paying one link latency:
// 2(n−1) for all-reduce, n−1 for the one-pass rings, 1 for send/recv and all-to-all.
int latencySteps(NcclCollective collective, int ranks);

} // namespace hetplan
