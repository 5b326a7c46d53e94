#pragma once

#include "core/base/result.h"

#include <memory>
#include <string>

namespace gloo::rendezvous {
class Store;
}

namespace hetplan::runtime {

// Where ranks meet: "redis://HOST:PORT" (Gloo's RedisStore, across hosts), "unix:PATH" (the
// host agent's store socket, SocketStore; docs/launcher.md, "The host agent") or a directory
// every rank can read and write (Gloo's FileStore). Errors name the address and what is wrong.
struct RendezvousAddress
{
    std::string directory; // set for a FileStore
    std::string redisHost; // set for a RedisStore
    int redisPort = 0;
    std::string socketPath; // set for a SocketStore

    bool isRedis() const { return !redisHost.empty(); }
    bool isSocket() const { return !socketPath.empty(); }
};

Result<RendezvousAddress> parseRendezvous(const std::string &text);

// Opens the store; a Redis server or a socket that cannot be reached is an error, not an
// exception. `timeoutS` bounds each request of a SocketStore (Gloo's stores take it per wait).
Result<std::unique_ptr<gloo::rendezvous::Store>> openStore(const RendezvousAddress &address,
                                                           double timeoutS = 60);

// What every backend does first: checks the rank's place in the world and the timeout, then
// parses `rendezvous` and opens its store.
Result<std::unique_ptr<gloo::rendezvous::Store>>
openRankStore(const std::string &rendezvous, int worldRank, int worldSize, double timeoutS);

} // namespace hetplan::runtime
