#pragma once

// What a plan's pre-flight found, check by check (docs/launcher.md, "Pre-flight"): the figures
// each check achieved beside the ones the `hetplan` cost model assumes for the same group, and
// a verdict. The launcher fills it (runtime/launcher/preflight_job.h); the CLI prints it.

#include <optional>
#include <string>
#include <vector>

namespace hetplan {

enum class PreflightVerdict { Ok, Slow, Hung, Failed };

// Achieved below this share of the assumed bandwidth is slow: the model would then predict the
// group at least twice as fast as it runs.
inline constexpr double kPreflightSlowFraction = 0.5;

struct PreflightMember
{
    int rank = 0;
    std::string gpu;  // "B:0"
    std::string host; // as the hosts file names it
};

struct PreflightRow
{
    std::string group; // the program's group key
    std::string kind;  // "TP", "hop" or "DP"
    // A hop's direction: the sending and the receiving member's GPU; empty for an all-reduce.
    std::string fromGpu;
    std::string toGpu;
    std::vector<PreflightMember> members;
    // What the check ran over, as the run will: "gloo tcp" (Gloo over TCP sockets) or "nccl"
    // (NCCL, over the network of the plan's recorded transport); empty when no member said.
    std::string transport;
    double messageBytes = 0;
    int ops = 0;
    double seconds = 0;
    // Bus bandwidth for an all-reduce (nccl-tests' convention, 2(n−1)/n · bytes / time), the
    // transfer's for a hop; both in bytes/s. Absent when nothing was measured.
    std::optional<double> achievedBytesPerS;
    // The algorithm bandwidth beside it (nccl-tests' algBw: bytes / time), which the bus
    // bandwidth scales; equal for a hop.
    std::optional<double> algBytesPerS;
    std::optional<double> latencyS;
    double assumedBytesPerS = 0;
    double assumedLatencyS = 0;
    PreflightVerdict verdict = PreflightVerdict::Ok;
    double slowBy = 1;  // assumed / achieved, for Slow
    std::string detail; // Hung: who did not answer; Failed: the error

    bool isHop() const { return !fromGpu.empty(); }
};

struct PreflightReport
{
    std::vector<PreflightRow> rows;
    double wallS = 0;     // connecting to the last host's cleanup
    std::string jobError; // the job's own failure (an agent lost, a rank died); empty if none
};

// Ok, or Slow with `slowBy`, from the figures; Hung and Failed come from what did not arrive.
void judgeMeasured(PreflightRow &row);

// 0 when every check is ok; kPreflightSlowExit when some are slow and none hung or failed;
// kPreflightBrokenExit when one hung or failed or the job itself failed.
inline constexpr int kPreflightSlowExit = 3;
inline constexpr int kPreflightBrokenExit = 4;
int preflightExitCode(const PreflightReport &report);

// "ok", "slow by 9.63×", "slow by 100×", "hung: B:0 (rank 1, 10.0.0.6) did not answer",
// "failed: …".
std::string verdictText(const PreflightRow &row);
// The table the CLI prints, one row per check, then the job's failure if any.
std::string preflightTable(const PreflightReport &report);
// "ok", "slow", "hung", "failed": the report's JSON spelling.
const char *verdictName(PreflightVerdict verdict);

} // namespace hetplan
