#pragma once

// The agent's side of the ranks' rendezvous (docs/launcher.md, "The host agent"): a Unix socket
// in the job folder, reachable by the job's user only. Each rank's store request is forwarded to
// the launcher under an id unique within the agent; the launcher's reply goes back to the rank
// under the rank's own id.

#include "core/base/result.h"
#include "runtime/agent/agent_protocol.h"
#include "runtime/agent/outgoing_bytes.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <poll.h>
#include <span>
#include <string>
#include <vector>

namespace hetplan::agent {

class StoreServer
{
public:
    // Receives each request for the launcher, already under the agent's id.
    using Forward = std::function<void(const StoreRequest &)>;

    // At most this many ranks' connections at once, each with at most this many requests
    // unanswered; a connection beyond is closed.
    static constexpr std::size_t kMaxClients = 1024;
    static constexpr std::size_t kMaxPendingPerClient = 4096;
    // A rank that does not read its replies is not read from while this many bytes wait for it.
    static constexpr std::size_t kMaxQueuedReplyBytes = std::size_t(1) << 20;

    // Makes `jobDir` the user's alone (0700) and listens on its kStoreSocketName (0600).
    static Result<std::unique_ptr<StoreServer>> listen(const std::string &jobDir, Forward forward);
    ~StoreServer(); // closes every connection and removes the socket
    StoreServer(const StoreServer &) = delete;
    StoreServer &operator=(const StoreServer &) = delete;

    // The descriptors to poll; `reading` false while the launcher's queue is full.
    void addPollFds(std::vector<pollfd> &fds, bool reading) const;
    // Handles what poll() said about the descriptors addPollFds() added.
    void onPoll(std::span<const pollfd> fds);
    // The launcher's reply to a forwarded request; one for a rank that is gone is dropped.
    void deliver(const StoreReply &reply);
    std::size_t clients() const { return m_clients.size(); }

private:
    struct Client
    {
        int fd = -1;
        FrameReader in;
        OutgoingBytes out;
        std::size_t pending = 0;
    };
    struct Pending
    {
        int fd = -1; // the client's descriptor, unique while it is connected
        std::uint32_t clientId = 0;
    };

    StoreServer(int listenFd, std::string socketPath, Forward forward);
    void accept();
    bool read(Client &client);
    void drop(int fd);

    int m_listenFd = -1;
    std::string m_socketPath;
    Forward m_forward;
    std::map<int, Client> m_clients; // by descriptor
    std::map<std::uint32_t, Pending> m_pending;
    std::uint32_t m_nextId = 1;
};

} // namespace hetplan::agent
