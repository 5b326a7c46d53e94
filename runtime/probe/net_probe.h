#pragma once

#include "core/base/result.h"
#include "core/io/probe_file.h"
#include "runtime/comm/comm.h"

#include <string>
#include <vector>

namespace hetplan::runtime::probe {

// The one Gloo group of a probe: every rank.
inline constexpr const char *kProbeGroup = "probe";

// A whole text (a host name, a rank's probe file) from one rank to another over the group.
Status sendText(Comm &comm, int peer, const std::string &text);
Result<std::string> recvText(Comm &comm, int peer);

// Every rank's text at rank 0, in rank order (rank 0's own first); other ranks get {}.
Result<std::vector<std::string>> gatherText(Comm &comm, int world, const std::string &text);

// TCP bandwidth and latency of every pair of ranks by ping-pong through Gloo: the pairs are
// measured one at a time, in one global order, with a barrier between them so no two pairs
// share a link; a pair whose sweep is not plausible is swept again (pair_sweeps.h). Returns the
// pairs this rank initiated (it is the lower rank); `names` are every rank's host names.
Result<std::vector<ProbedPair>> probeTcpPairs(Comm &comm, int rank,
                                              const std::vector<std::string> &names,
                                              const std::vector<double> &sizesBytes,
                                              int repetitions);

} // namespace hetplan::runtime::probe
