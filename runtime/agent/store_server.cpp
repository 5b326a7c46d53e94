// The ranks' store socket (store_server.h; docs/launcher.md, "The host agent").
#include "runtime/agent/store_server.h"

#include <cerrno>
#include <cstring>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace hetplan::agent {

namespace {

Error socketError(const std::string &what, const std::string &path)
{
    return Error{ErrorKind::Internal, what + " " + path + ": " + std::strerror(errno)};
}

} // namespace

Result<std::unique_ptr<StoreServer>> StoreServer::listen(const std::string &jobDir, Forward forward)
{
    if (::chmod(jobDir.c_str(), 0700) != 0)
        return socketError("cannot make the job folder private:", jobDir);
    std::string path = jobDir;
    path += '/';
    path += kStoreSocketName;
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.size() >= sizeof address.sun_path)
        return Error{ErrorKind::BadInput, "the store socket's path " + path + " is longer than "
                                              + std::to_string(sizeof address.sun_path - 1)
                                              + " bytes; use a shorter work folder"};
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return socketError("cannot make the store socket", path);
    ::unlink(path.c_str());
    // Created 0600 rather than made so afterwards: no moment in which another user could connect.
    const mode_t oldMask = ::umask(0177);
    const int bound = ::bind(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address);
    ::umask(oldMask);
    if (bound != 0 || ::listen(fd, 128) != 0) {
        Error error = socketError("cannot listen on", path);
        ::close(fd);
        return error;
    }
    return std::unique_ptr<StoreServer>(new StoreServer(fd, path, std::move(forward)));
}

StoreServer::StoreServer(int listenFd, std::string socketPath, Forward forward)
    : m_listenFd(listenFd)
    , m_socketPath(std::move(socketPath))
    , m_forward(std::move(forward))
{}

StoreServer::~StoreServer()
{
    for (const auto &[fd, client] : m_clients)
        ::close(fd);
    ::close(m_listenFd);
    ::unlink(m_socketPath.c_str());
}

void StoreServer::addPollFds(std::vector<pollfd> &fds, bool reading) const
{
    fds.push_back({m_listenFd, short(reading ? POLLIN : 0), 0});
    for (const auto &[fd, client] : m_clients) {
        short events = reading && client.out.queuedBytes() < kMaxQueuedReplyBytes ? POLLIN : 0;
        if (!client.out.empty())
            events |= POLLOUT;
        fds.push_back({fd, events, 0});
    }
}

void StoreServer::onPoll(std::span<const pollfd> fds)
{
    std::vector<int> gone;
    for (std::size_t i = 1; i < fds.size(); ++i) {
        const auto it = m_clients.find(fds[i].fd);
        if (it == m_clients.end() || fds[i].revents == 0)
            continue;
        Client &client = it->second;
        bool alive = true;
        if (fds[i].revents & POLLOUT)
            alive = client.out.writeSome(client.fd);
        if (alive && (fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
            alive = read(client);
        if (!alive)
            gone.push_back(client.fd);
    }
    for (int fd : gone)
        drop(fd);
    if (fds[0].revents & POLLIN)
        accept();
}

void StoreServer::accept()
{
    for (;;) {
        const int fd = ::accept4(m_listenFd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        // The folder's mode keeps other users out; the peer's uid says so again.
        ucred peer{};
        socklen_t length = sizeof peer;
        const bool sameUser = ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) == 0
                              && peer.uid == ::geteuid();
        if (!sameUser || m_clients.size() >= kMaxClients) {
            ::close(fd);
            continue;
        }
        m_clients[fd].fd = fd;
    }
}

// Reads what the client sent and forwards its requests; false when it is gone or broke the
// format (nothing after a broken frame can be trusted).
bool StoreServer::read(Client &client)
{
    char buffer[64 * 1024];
    const ssize_t got = ::read(client.fd, buffer, sizeof buffer);
    if (got == 0)
        return false;
    if (got < 0)
        return errno == EAGAIN || errno == EINTR;
    client.in.feed(std::string_view(buffer, std::size_t(got)));
    for (;;) {
        auto frame = client.in.next();
        if (!frame || (*frame && (*frame)->kind != FrameKind::StoreRequest))
            return false;
        if (!*frame)
            return true;
        auto request = decodeStoreRequest((*frame)->payload);
        if (!request || client.pending >= kMaxPendingPerClient)
            return false;
        const std::uint32_t id = m_nextId++;
        m_pending[id] = {client.fd, request->id};
        ++client.pending;
        request->id = id;
        m_forward(*request);
    }
}

void StoreServer::deliver(const StoreReply &reply)
{
    const auto pending = m_pending.find(reply.id);
    if (pending == m_pending.end())
        return;
    const auto client = m_clients.find(pending->second.fd);
    StoreReply own = reply;
    own.id = pending->second.clientId;
    m_pending.erase(pending);
    if (client == m_clients.end())
        return;
    --client->second.pending;
    client->second.out.push(encodeFrame({FrameKind::StoreReply, -1, encodeStoreReply(own)}));
    if (!client->second.out.writeSome(client->second.fd))
        drop(client->first);
}

void StoreServer::drop(int fd)
{
    std::erase_if(m_pending, [fd](const auto &entry) { return entry.second.fd == fd; });
    m_clients.erase(fd);
    ::close(fd);
}

} // namespace hetplan::agent
