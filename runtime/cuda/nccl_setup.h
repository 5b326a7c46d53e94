#pragma once

// How the NCCL backend sets up one communicator per program group (docs/runtime.md, "The GPU
// backend"): the unique id travels through the run's rendezvous store, and each communicator
// gets its own config, so one job can mix InfiniBand and socket groups (Holmes §3.2).
// Nothing here needs a GPU.

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

// NCCL's network for a recorded transport: its IB transport serves InfiniBand and RoCE alike,
// "Socket" is TCP. nullptr (no transport recorded): NCCL's own choice.
const char *ncclNetName(const std::optional<Transport> &transport);

// The config of one group's communicator: non-blocking, so every call returns at once and a
// dead peer shows up as a timeout instead of a hang; the network from the plan; the group key
// as the communicator's name in NCCL's logs. `key` must outlive the config.
ncclConfig_t ncclConfigFor(const std::string &key, const std::optional<Transport> &transport);

// The store key of a group's unique id.
std::string uniqueIdKey(const std::string &groupKey);

// The unique id of a group's communicator: `creator` (the group's first member) makes it and
// publishes it under uniqueIdKey(groupKey); every other member waits for it up to `timeout`.
Result<ncclUniqueId> shareUniqueId(gloo::rendezvous::Store &store, const std::string &groupKey,
                                   bool creator, std::chrono::milliseconds timeout);

// An NCCL status as an Error: "<what>: <NCCL's message> (<NCCL's last warning>)".
Error ncclFailure(ncclResult_t result, std::string_view what);

} // namespace hetplan::runtime::cuda
