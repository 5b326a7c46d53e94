#pragma once

#include "core/base/result.h"
#include "core/launch/rank_endpoint.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hetplan::runtime {

// The worker's and the probe's command lines carry it (core/launch/rank_endpoint.h).
using CommOptions = RankEndpoint;

// One communication group: a stable key (the program's group key) and its members as world
// ranks, in group-rank order.
struct GroupSpec
{
    std::string key;
    std::vector<int> members;
};

// The Gloo backend of one rank: one TCP device bound to an explicit address (Gloo's default
// resolves the host name, which Debian maps to 127.0.1.1), and one Gloo context per group
// this rank belongs to. Peers are named by world rank. Every call blocks for at most the
// timeout; every failure comes back as an Error naming the group key, the peer and the op.
class Comm
{
public:
    static Result<std::unique_ptr<Comm>> open(const CommOptions &options, int worldRank,
                                              int worldSize);
    ~Comm();
    Comm(const Comm &) = delete;
    Comm &operator=(const Comm &) = delete;

    // Connects this rank's contexts. `groups` must be the same list, in the same order, on
    // every rank: contexts connect pairwise, so one global order cannot deadlock. Each group's
    // rendezvous keys live under its own prefix (the group key).
    Status connect(const std::vector<GroupSpec> &groups);

    // Point-to-point inside a group; `slot` tells apart transfers between the same pair.
    Status send(const std::string &group, int peer, const float *data, std::size_t count,
                std::uint64_t slot);
    Status recv(const std::string &group, int peer, float *data, std::size_t count,
                std::uint64_t slot);
    // Transfers that must progress together (1F1B's "send forward, receive backward"): all are
    // posted, then all are awaited, so neighbours doing the mirror image cannot deadlock.
    struct Transfer
    {
        std::string group;
        int peer = 0;
        float *data = nullptr;
        std::size_t count = 0;
        std::uint64_t slot = 0;
        bool send = true;
    };
    Status exchange(const std::vector<Transfer> &transfers);

    // Transfers posted now and awaited later. Gloo moves a transfer's data only once both
    // sides have posted it, so a receive posted ahead of the operation that needs it finds
    // the peer's data already there when the operation comes, with no round trip.
    class Posted
    {
    public:
        Posted();
        ~Posted();
        Posted(Posted &&) noexcept;
        Posted &operator=(Posted &&) noexcept;

    private:
        friend class Comm;
        struct Buffers;
        std::vector<Transfer> m_transfers;
        std::unique_ptr<Buffers> m_buffers;
    };
    Result<Posted> post(const std::vector<Transfer> &transfers);
    // Waits for every transfer of `posted`, up to the call timeout from now.
    Status wait(Posted &posted);

    // Collectives over every member of the group.
    Status broadcast(const std::string &group, int root, float *data, std::size_t count);
    Status allReduceSum(const std::string &group, float *data, std::size_t count);
    // Returns once every member has called it, waiting up to `timeoutS` instead of the call
    // timeout: for members that may legitimately arrive far apart.
    Status barrier(const std::string &group, double timeoutS);

    int worldRank() const;
    bool inGroup(const std::string &group) const;

private:
    struct Impl;
    explicit Comm(std::unique_ptr<Impl> impl);
    Status allReduceSumWithin(const std::string &group, float *data, std::size_t count,
                              std::chrono::milliseconds timeout);
    std::unique_ptr<Impl> m_impl;
};

} // namespace hetplan::runtime
