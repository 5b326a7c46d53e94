#include "runtime/comm/rendezvous.h"

#include "runtime/comm/socket_store.h"

#include <charconv>
#include <filesystem>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/redis_store.h>

namespace hetplan::runtime {

Result<RendezvousAddress> parseRendezvous(const std::string &text)
{
    constexpr std::string_view kRedis = "redis://";
    constexpr std::string_view kUnix = "unix:";
    RendezvousAddress address;
    if (text.empty())
        return badInput("--rendezvous is empty; valid: a shared directory, redis://HOST:PORT or "
                        "unix:PATH");
    if (text.starts_with(kUnix)) {
        address.socketPath = text.substr(kUnix.size());
        if (address.socketPath.empty())
            return badInput("--rendezvous unix: names no socket; expected unix:PATH");
        return address;
    }
    if (!text.starts_with(kRedis)) {
        std::error_code ec;
        if (!std::filesystem::is_directory(text, ec))
            return badInput("--rendezvous " + text
                            + ": not a directory; valid: a directory every rank can write, or "
                              "redis://HOST:PORT");
        address.directory = text;
        return address;
    }
    const std::string rest = text.substr(kRedis.size());
    const auto colon = rest.rfind(':');
    if (colon == std::string::npos || colon == 0)
        return badInput("--rendezvous " + text + ": expected redis://HOST:PORT");
    int port = 0;
    const char *begin = rest.data() + colon + 1;
    const char *end = rest.data() + rest.size();
    const auto [ptr, ec] = std::from_chars(begin, end, port);
    if (ec != std::errc() || ptr != end || port < 1 || port > 65535)
        return badInput("--rendezvous " + text + ": the port must be 1..65535");
    address.redisHost = rest.substr(0, colon);
    address.redisPort = port;
    return address;
}

Result<std::unique_ptr<gloo::rendezvous::Store>> openStore(const RendezvousAddress &address,
                                                           double timeoutS)
{
    if (address.isSocket()) {
        auto store = SocketStore::connect(
            address.socketPath, std::chrono::milliseconds(static_cast<long long>(timeoutS * 1000)));
        if (!store)
            return store.error();
        return std::unique_ptr<gloo::rendezvous::Store>(std::move(store).value());
    }
    if (!address.isRedis())
        return std::unique_ptr<gloo::rendezvous::Store>(
            std::make_unique<gloo::rendezvous::FileStore>(address.directory));
    try {
        return std::unique_ptr<gloo::rendezvous::Store>(
            std::make_unique<gloo::rendezvous::RedisStore>(address.redisHost, address.redisPort));
    } catch (const std::exception &e) {
        return Error{ErrorKind::Internal,
                     "cannot reach the Redis rendezvous at " + address.redisHost + ":"
                         + std::to_string(address.redisPort) + ": " + e.what()};
    }
}

Result<std::unique_ptr<gloo::rendezvous::Store>>
openRankStore(const std::string &rendezvous, int worldRank, int worldSize, double timeoutS)
{
    if (worldSize < 1 || worldRank < 0 || worldRank >= worldSize)
        return badInput("rank " + std::to_string(worldRank) + " is outside the world of "
                        + std::to_string(worldSize) + " ranks");
    if (!(timeoutS > 0))
        return badInput("--timeout-s must be > 0");
    auto address = parseRendezvous(rendezvous);
    if (!address)
        return address.error();
    return openStore(*address, timeoutS);
}

} // namespace hetplan::runtime
