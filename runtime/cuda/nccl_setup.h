#pragma once

// How the NCCL backend sets up one communicator per program group (docs/runtime.md, "The GPU
// backend"): the unique id travels through the run's rendezvous store, each communicator gets
// its own config, so one job can mix InfiniBand and socket groups (Holmes §3.2), and every rank
// reports through the store when its setup is done. Nothing here needs a GPU.

#include "core/base/result.h"
#include "runtime/program/program.h"

#include <chrono>
#include <nccl.h>
#include <optional>
#include <string>

namespace gloo::rendezvous {
class Store;
}

namespace hetplan::runtime::cuda {

// The budget of a rank's setup: the unique-id exchange, creating and warming up the
// communicators, and the readiness barrier after the shard is built. Not the step timeout,
// since setup waits for the slowest peer's start and initialisation, which a step never does:
// kSetupTimeoutFactor × --timeout-s (10 minutes by default).
constexpr double kSetupTimeoutFactor = 10;
std::chrono::milliseconds setupTimeout(double stepTimeoutS);

// The time from now to `deadline` as a store's wait timeout: at least 1 ms, since Gloo's stores
// read a timeout of 0 as none.
std::chrono::milliseconds timeLeft(std::chrono::steady_clock::time_point deadline);

// NCCL's network for a recorded transport: its IB transport serves InfiniBand and RoCE alike,
// "Socket" is TCP. nullptr (no transport recorded): NCCL's own choice.
const char *ncclNetName(const std::optional<Transport> &transport);

// The config of one group's communicator: non-blocking, so every call returns at once and a
// dead peer shows up as a timeout instead of a hang; the network from the plan; the group key
// as the communicator's name in NCCL's logs. NCCL keeps the config's string pointers for the
// communicator's life, so the config owns its strings: keep it as long as the communicator.
// Neither copied nor moved, since the pointers point into it.
class NcclConfig
{
public:
    NcclConfig(std::string groupKey, const std::optional<Transport> &transport);
    NcclConfig(const NcclConfig &) = delete;
    NcclConfig &operator=(const NcclConfig &) = delete;

    ncclConfig_t *get() { return &m_config; }
    const ncclConfig_t &config() const { return m_config; }

private:
    std::string m_name;
    std::string m_netName; // empty: NCCL's choice
    ncclConfig_t m_config;
};

// The store key of a group's unique id.
std::string uniqueIdKey(const std::string &groupKey);

// The unique id of a group's communicator: `creator` (the group's first member) makes it and
// publishes it under uniqueIdKey(groupKey); every other member waits for it up to `timeout`.
Result<ncclUniqueId> shareUniqueId(gloo::rendezvous::Store &store, const std::string &groupKey,
                                   bool creator, std::chrono::milliseconds timeout);

// The readiness barrier: publishes that `worldRank` is ready (under "<barrier>/ready/<rank>"),
// then waits up to `timeout` until every rank of the world has. A timeout is an error naming
// the ranks that never reported.
Status awaitEveryRank(gloo::rendezvous::Store &store, const std::string &barrier, int worldRank,
                      int worldSize, std::chrono::milliseconds timeout);

} // namespace hetplan::runtime::cuda
