#pragma once

// A pair whose sweep fails a plausibility check is swept again (docs/probe.md, "Pairs measured
// again"): a latency spike on a busy host does not come back, a link that really behaves so
// does, and only a pair still flagged after its last sweep is written flagged.

#include "core/base/result.h"
#include "core/io/probe_file.h"

#include <ostream>
#include <vector>

namespace hetplan::runtime::probe {

// A pair's sweeps in all: the first and up to two more.
inline constexpr int kMaxPairSweeps = 3;

// Whether `pair`, swept `pair.sweeps` times, is swept again: its last sweep fails a
// plausibility check and fewer than kMaxPairSweeps ran. Says which check on `log`.
inline bool sweepAgain(const ProbedPair &pair, std::ostream &log)
{
    if (pair.sweeps >= kMaxPairSweeps || pair.sizes.empty())
        return false;
    const std::vector<PlausibilityFlag> flags = plausibilityFlags(pair, "pair");
    if (flags.empty())
        return false;
    log << "hetplan-probe: " << endpointText(pair.a) << " - " << endpointText(pair.b) << ": sweep "
        << pair.sweeps << " of at most " << kMaxPairSweeps << " is not plausible ("
        << flags.front().check << " at " << flags.front().path << ": " << flags.front().message
        << "); measuring it again\n";
    return true;
}

// Sweeps one pair until it passes or kMaxPairSweeps ran and returns the last sweep with its
// count. `sweep()` gives a Result<ProbedPair>; `agree(again)` a Result<bool>: whether every
// rank taking part sweeps again (a rank that only answers, or waits, brings false).
template<typename Sweep, typename Agree>
Result<ProbedPair> sweepPair(std::ostream &log, Sweep sweep, Agree agree)
{
    for (int sweeps = 1;; ++sweeps) {
        Result<ProbedPair> pair = sweep();
        if (!pair)
            return pair;
        pair->sweeps = sweeps;
        const Result<bool> again = agree(sweepAgain(*pair, log));
        if (!again)
            return again.error();
        if (!*again)
            return pair;
    }
}

// The same on one process, where nobody else has a say.
template<typename Sweep>
Result<ProbedPair> sweepPair(std::ostream &log, Sweep sweep)
{
    return sweepPair(log, sweep, [](bool again) -> Result<bool> { return again; });
}

} // namespace hetplan::runtime::probe
