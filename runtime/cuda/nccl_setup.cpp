#include "runtime/cuda/nccl_setup.h"

#include <cstring>
#include <gloo/rendezvous/store.h>

namespace hetplan::runtime::cuda {

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

ncclConfig_t ncclConfigFor(const std::string &key, const std::optional<Transport> &transport)
{
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    config.commName = key.c_str();
    // Left undefined, NCCL picks the network itself; NCCL_NET is never exported, since it would
    // override every communicator's netName.
    if (const char *net = ncclNetName(transport))
        config.netName = net;
    return config;
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
            if (const ncclResult_t made = ncclGetUniqueId(&id); made != ncclSuccess)
                return ncclFailure(made, "creating the NCCL unique id of group " + groupKey);
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
        return Error{ErrorKind::Internal, std::string(creator ? "publishing" : "fetching")
                                              + " the NCCL unique id of group " + groupKey
                                              + " through the rendezvous failed: " + e.what()};
    }
}

Error ncclFailure(ncclResult_t result, std::string_view what)
{
    std::string message = std::string(what) + ": " + ncclGetErrorString(result);
    if (const char *last = ncclGetLastError(nullptr); last != nullptr && *last != '\0')
        message += " (" + std::string(last) + ")";
    return {ErrorKind::Internal, message};
}

} // namespace hetplan::runtime::cuda
