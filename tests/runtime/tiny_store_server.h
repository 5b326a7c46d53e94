#pragma once

// The host agent's store socket without an agent or a launcher: the rendezvous keys
// (runtime/agent/store_keys.h) behind a Unix socket, served by one thread that the destructor
// stops and joins, also when a check failed.

#include "runtime/agent/agent_protocol.h"
#include "runtime/agent/store_keys.h"

#include <cstring>
#include <map>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace hetplan::agent::test {

class TinyStoreServer
{
public:
    explicit TinyStoreServer(const std::string &path)
        : m_path(path)
    {
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
        m_listen = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        m_listening = ::bind(m_listen, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0
                      && ::listen(m_listen, 16) == 0 && ::pipe(m_stop) == 0;
        if (m_listening)
            m_thread = std::thread([this] { serve(); });
    }
    ~TinyStoreServer()
    {
        if (m_thread.joinable()) {
            [[maybe_unused]] const ssize_t n = ::write(m_stop[1], "x", 1);
            m_thread.join();
        }
        for (int fd : {m_listen, m_stop[0], m_stop[1]})
            if (fd >= 0)
                ::close(fd);
        ::unlink(m_path.c_str());
    }
    TinyStoreServer(const TinyStoreServer &) = delete;
    TinyStoreServer &operator=(const TinyStoreServer &) = delete;

    bool listening() const { return m_listening; }

private:
    void serve()
    {
        std::map<int, FrameReader> clients;
        StoreKeys keys;
        for (;;) {
            std::vector<pollfd> fds{{m_stop[0], POLLIN, 0}, {m_listen, POLLIN, 0}};
            for (const auto &[fd, reader] : clients)
                fds.push_back({fd, POLLIN, 0});
            if (::poll(fds.data(), fds.size(), -1) < 0)
                continue;
            if (fds[0].revents)
                break;
            if (fds[1].revents)
                clients[::accept(m_listen, nullptr, nullptr)];
            for (std::size_t i = 2; i < fds.size(); ++i) {
                if (!fds[i].revents)
                    continue;
                const int fd = fds[i].fd;
                char buffer[4096];
                const ssize_t got = ::read(fd, buffer, sizeof buffer);
                if (got <= 0) {
                    keys.forget(fd);
                    clients.erase(fd);
                    ::close(fd);
                    continue;
                }
                FrameReader &reader = clients[fd];
                reader.feed(std::string_view(buffer, std::size_t(got)));
                for (auto frame = reader.next(); frame && *frame; frame = reader.next()) {
                    auto request = decodeStoreRequest((*frame)->payload);
                    if (!request)
                        continue;
                    for (const StoreKeys::Due &due : keys.handle(fd, *request)) {
                        const std::string bytes
                            = encodeFrame({FrameKind::StoreReply, -1, encodeStoreReply(due.reply)});
                        [[maybe_unused]] const ssize_t n
                            = ::write(due.asker, bytes.data(), bytes.size());
                    }
                }
            }
        }
        for (const auto &[fd, reader] : clients)
            ::close(fd);
    }

    std::string m_path;
    int m_listen = -1;
    int m_stop[2] = {-1, -1};
    bool m_listening = false;
    std::thread m_thread;
};

} // namespace hetplan::agent::test
