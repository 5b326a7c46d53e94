#include "runtime/probe/net_probe.h"

#include "runtime/probe/pair_sweeps.h"
#include "runtime/probe/probe_shapes.h"
#include "runtime/probe/probe_timing.h"

#include <cstdint>
#include <cstring>
#include <iostream>

namespace hetplan::runtime::probe {
namespace {

constexpr std::uint64_t kTextSlot = 1;
constexpr std::uint64_t kPingSlot = 2;
constexpr std::uint64_t kPongSlot = 3;
constexpr std::size_t kMaxTextBytes = std::size_t(256) << 20;

// Gloo moves bytes; the floats only carry them.
std::size_t floatsFor(std::size_t bytes)
{
    return (bytes + sizeof(float) - 1) / sizeof(float);
}

// Whether any rank says `mine`, known to every rank; it also keeps the ranks in step.
Result<bool> anyRank(Comm &comm, bool mine)
{
    float votes = mine ? 1 : 0;
    if (Status s = comm.allReduceSum(kProbeGroup, &votes, 1); !s)
        return s.error();
    return votes > 0;
}

// One sweep between this rank and `peer`; the initiator times round trips, the other side
// answers every message with one of the same size.
Result<ProbedPair> pingPong(Comm &comm, int peer, bool initiator,
                            const std::vector<double> &sizesBytes, int repetitions)
{
    ProbedPair pair;
    pair.method = "gloo-tcp";
    std::vector<float> buffer(floatsFor(std::size_t(sizesBytes.back())), 1.0f);
    for (double bytes : sizesBytes) {
        const std::size_t count = floatsFor(std::size_t(bytes));
        Status status = okStatus();
        const std::vector<double> seconds = timedRepetitions(repetitions, [&] {
            if (!status)
                return;
            if (initiator) {
                status = comm.send(kProbeGroup, peer, buffer.data(), count, kPingSlot);
                if (status)
                    status = comm.recv(kProbeGroup, peer, buffer.data(), count, kPongSlot);
            } else {
                status = comm.recv(kProbeGroup, peer, buffer.data(), count, kPingSlot);
                if (status)
                    status = comm.send(kProbeGroup, peer, buffer.data(), count, kPongSlot);
            }
        });
        if (!status)
            return status.error();
        pair.sizes.push_back(roundTripPoint(bytes, seconds));
    }
    summarizePair(pair);
    return pair;
}

} // namespace

Status sendText(Comm &comm, int peer, const std::string &text)
{
    std::uint64_t bytes = text.size();
    float header[2];
    std::memcpy(header, &bytes, sizeof bytes);
    if (Status s = comm.send(kProbeGroup, peer, header, 2, kTextSlot); !s)
        return s;
    std::vector<float> body(floatsFor(text.size()));
    std::memcpy(body.data(), text.data(), text.size());
    return comm.send(kProbeGroup, peer, body.data(), body.size(), kTextSlot);
}

Result<std::string> recvText(Comm &comm, int peer)
{
    float header[2];
    if (Status s = comm.recv(kProbeGroup, peer, header, 2, kTextSlot); !s)
        return s.error();
    std::uint64_t bytes = 0;
    std::memcpy(&bytes, header, sizeof bytes);
    if (bytes > kMaxTextBytes)
        return Error{ErrorKind::Internal, "rank " + std::to_string(peer) + " announced "
                                              + std::to_string(bytes)
                                              + " bytes of results; at most 256 MiB are taken"};
    std::vector<float> body(floatsFor(bytes));
    if (Status s = comm.recv(kProbeGroup, peer, body.data(), body.size(), kTextSlot); !s)
        return s.error();
    std::string text(bytes, '\0');
    std::memcpy(text.data(), body.data(), bytes);
    return text;
}

Result<std::vector<std::string>> gatherText(Comm &comm, int world, const std::string &text)
{
    if (comm.worldRank() != 0) {
        if (Status s = sendText(comm, 0, text); !s)
            return s.error();
        return std::vector<std::string>{};
    }
    std::vector<std::string> texts{text};
    for (int peer = 1; peer < world; ++peer) {
        auto received = recvText(comm, peer);
        if (!received)
            return received.error();
        texts.push_back(std::move(*received));
    }
    return texts;
}

Result<std::vector<ProbedPair>> probeTcpPairs(Comm &comm, int rank,
                                              const std::vector<std::string> &names,
                                              const std::vector<double> &sizesBytes,
                                              int repetitions)
{
    const int world = int(names.size());
    std::vector<ProbedPair> mine;
    for (int a = 0; a < world; ++a)
        for (int b = a + 1; b < world; ++b) {
            const auto sweep = [&]() -> Result<ProbedPair> {
                if (rank != a && rank != b)
                    return ProbedPair{};
                auto pair = pingPong(comm, rank == a ? b : a, rank == a, sizesBytes, repetitions);
                if (!pair)
                    return pair;
                if (rank == b)
                    return ProbedPair{}; // it answered; the initiator's times count
                pair->a = {names[std::size_t(a)], -1};
                pair->b = {names[std::size_t(b)], -1};
                return pair;
            };
            // Every rank votes after each sweep, which also keeps one pair at a time on the
            // links; only the initiator's figures can ask for another sweep.
            auto pair
                = sweepPair(std::cerr, sweep, [&](bool again) { return anyRank(comm, again); });
            if (!pair)
                return pair.error();
            if (rank == a)
                mine.push_back(std::move(*pair));
        }
    return mine;
}

} // namespace hetplan::runtime::probe
