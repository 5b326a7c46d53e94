#include "runtime/cuda/nccl_setup.h"

#include "runtime/cuda/nccl_status.h"

#include <algorithm>
#include <cstring>
#include <gloo/rendezvous/store.h>

namespace hetplan::runtime::cuda {

namespace {

using Clock = std::chrono::steady_clock;

std::string readyKey(const std::string &barrier, int rank)
{
    std::string key = barrier;
    key += "/ready/";
    key += std::to_string(rank);
    return key;
}

// Whether `key` is in the store; waits at most about a millisecond (a file store checks once).
bool present(gloo::rendezvous::Store &store, const std::string &key)
{
    try {
        store.wait({key}, std::chrono::milliseconds(1));
        return true;
    } catch (const std::exception &) {
        return false;
    }
}

} // namespace

std::chrono::milliseconds setupTimeout(double stepTimeoutS)
{
    return std::chrono::milliseconds(
        static_cast<long long>(kSetupTimeoutFactor * stepTimeoutS * 1000.0));
}

std::chrono::milliseconds timeLeft(Clock::time_point deadline)
{
    return std::max(std::chrono::milliseconds(1),
                    std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
}

const char *ncclNetName(const std::optional<Transport> &transport)
{
    if (!transport)
        return nullptr;
    switch (*transport) {
    case Transport::InfiniBand:
    case Transport::Roce:
        return "IB";
    case Transport::Socket:
        return "Socket";
    }
    return nullptr;
}

NcclConfig::NcclConfig(std::string groupKey, const std::optional<Transport> &transport)
    : m_name(std::move(groupKey))
    , m_config(NCCL_CONFIG_INITIALIZER)
{
    m_config.blocking = 0;
    m_config.commName = m_name.c_str();
    // Left undefined, NCCL picks the network itself; NCCL_NET is never exported, since it would
    // override every communicator's netName.
    if (const char *net = ncclNetName(transport)) {
        m_netName = net;
        m_config.netName = m_netName.c_str();
    }
}

std::string uniqueIdKey(const std::string &groupKey)
{
    return groupKey + "/nccl-unique-id";
}

Result<ncclUniqueId> shareUniqueId(gloo::rendezvous::Store &store, const std::string &groupKey,
                                   bool creator, std::chrono::milliseconds timeout)
{
    const std::string key = uniqueIdKey(groupKey);
    ncclUniqueId id{};
    try {
        if (creator) {
            if (Status made = ncclCall(ncclGetUniqueId(&id),
                                       "creating the NCCL unique id of group " + groupKey);
                !made)
                return made.error();
            store.set(key, std::vector<char>(id.internal, id.internal + sizeof id.internal));
            return id;
        }
        store.wait({key}, timeout);
        const std::vector<char> bytes = store.get(key);
        if (bytes.size() != sizeof id.internal)
            return Error{ErrorKind::Internal, "the NCCL unique id of group " + groupKey + " has "
                                                  + std::to_string(bytes.size()) + " bytes, not "
                                                  + std::to_string(sizeof id.internal)};
        std::memcpy(id.internal, bytes.data(), sizeof id.internal);
        return id;
    } catch (const std::exception &e) {
        std::string message = creator ? "publishing" : "fetching";
        message += " the NCCL unique id of group ";
        message += groupKey;
        message += " through the rendezvous failed";
        if (!creator) {
            message += " (the group's first member publishes it; waited up to ";
            message += std::to_string(timeout.count());
            message += " ms)";
        }
        message += ": ";
        message += e.what();
        return Error{ErrorKind::Internal, std::move(message)};
    }
}

Status awaitEveryRank(gloo::rendezvous::Store &store, const std::string &barrier, int worldRank,
                      int worldSize, std::chrono::milliseconds timeout)
{
    const auto deadline = Clock::now() + timeout;
    try {
        store.set(readyKey(barrier, worldRank), {'1'});
        for (int rank = 0; rank < worldSize; ++rank) {
            store.wait({readyKey(barrier, rank)}, timeLeft(deadline));
        }
        return okStatus();
    } catch (const std::exception &e) {
        std::string missing;
        for (int rank = 0; rank < worldSize; ++rank)
            if (!present(store, readyKey(barrier, rank))) {
                if (!missing.empty())
                    missing += ", ";
                missing += std::to_string(rank);
            }
        std::string message = "waiting for every rank to finish its setup (";
        message += barrier;
        message += ") failed after ";
        message += std::to_string(timeout.count());
        message += " ms: ";
        if (!missing.empty()) {
            message += "rank(s) ";
            message += missing;
            message += " never reported ready";
        } else {
            message += e.what();
        }
        return Error{ErrorKind::Internal, std::move(message)};
    }
}

} // namespace hetplan::runtime::cuda
