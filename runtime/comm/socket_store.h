#pragma once

// Gloo's Store over the job's Unix socket (`--rendezvous unix:PATH`): the host agent passes each
// request to the launcher, which holds the keys (docs/launcher.md, "The host agent"). Gloo's
// callers expect exceptions from a Store: a request not answered in time, a refused one and a
// closed socket throw gloo::IoException naming the key and the wait.

#include "core/base/result.h"
#include "runtime/agent/agent_protocol.h"

#include <chrono>
#include <cstdint>
#include <gloo/rendezvous/store.h>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace hetplan::runtime {

class SocketStore : public gloo::rendezvous::Store
{
public:
    // A socket that cannot be reached is an Error naming the path and why. `timeout` bounds
    // each get, and each wait that names none.
    static Result<std::unique_ptr<SocketStore>> connect(const std::string &path,
                                                        std::chrono::milliseconds timeout);
    ~SocketStore() override;
    SocketStore(const SocketStore &) = delete;
    SocketStore &operator=(const SocketStore &) = delete;

    void set(const std::string &key, const std::vector<char> &data) override;
    std::vector<char> get(const std::string &key) override;
    void wait(const std::vector<std::string> &keys) override;
    void wait(const std::vector<std::string> &keys,
              const std::chrono::milliseconds &timeout) override;

private:
    SocketStore(int fd, std::string path, std::chrono::milliseconds timeout);
    // Sends `request` and waits for its reply; throws as the class comment says.
    agent::StoreReply call(agent::StoreRequest request, std::chrono::milliseconds timeout);
    void sendAll(const std::string &bytes, std::chrono::steady_clock::time_point deadline,
                 const std::string &what);

    int m_fd = -1;
    std::string m_path;
    std::chrono::milliseconds m_timeout;
    std::mutex m_mutex; // one request at a time on the socket
    agent::FrameReader m_reader;
    std::uint32_t m_nextId = 1;
};

} // namespace hetplan::runtime
