// SocketStore (socket_store.h): one request at a time, each answered by a StoreReply frame with
// its id; a reply to an earlier request that timed out is skipped.
#include "runtime/comm/socket_store.h"

#include <cerrno>
#include <cstring>
#include <gloo/common/error.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace hetplan::runtime {

namespace {

using Clock = std::chrono::steady_clock;

std::string describeKeys(const std::vector<std::string> &keys)
{
    std::string text;
    for (const std::string &key : keys) {
        text += text.empty() ? "'" : ", '";
        text += key;
        text += '\'';
    }
    return text;
}

std::string describeRequest(const agent::StoreRequest &request)
{
    using Op = agent::StoreRequest::Op;
    std::string text = request.op == Op::Set   ? "set of "
                       : request.op == Op::Get ? "get of "
                                               : "wait for ";
    text += describeKeys(request.keys);
    return text;
}

std::string seconds(std::chrono::milliseconds wait)
{
    const double s = double(wait.count()) / 1000.0;
    std::string text = std::to_string(s);
    text.erase(text.find_last_not_of('0') + 1);
    if (text.back() == '.')
        text.pop_back();
    return text + " s";
}

int waitFor(int fd, short events, Clock::time_point deadline)
{
    const auto left
        = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0)
        return 0;
    pollfd p{fd, events, 0};
    const int ready = ::poll(&p, 1, int(std::min<long long>(left.count() + 1, 1 << 30)));
    return ready < 0 && errno == EINTR ? waitFor(fd, events, deadline) : ready;
}

// What Gloo's own stores throw, without their source-file prefix: the message is the person's.
[[noreturn]] void fail(const std::string &message)
{
    throw gloo::IoException(message);
}

} // namespace

Result<std::unique_ptr<SocketStore>> SocketStore::connect(const std::string &path,
                                                          std::chrono::milliseconds timeout)
{
    const std::string where = "the rendezvous socket unix:" + path;
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.size() >= sizeof address.sun_path)
        return badInput(where + " is longer than " + std::to_string(sizeof address.sun_path - 1)
                        + " bytes");
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return Error{ErrorKind::Internal,
                     "cannot make a socket for " + where + ": " + std::strerror(errno)};
    if (::connect(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address) != 0) {
        const int error = errno;
        ::close(fd);
        return Error{ErrorKind::Internal,
                     "cannot connect to " + where + ": " + std::strerror(error)};
    }
    return std::unique_ptr<SocketStore>(new SocketStore(fd, path, timeout));
}

SocketStore::SocketStore(int fd, std::string path, std::chrono::milliseconds timeout)
    : m_fd(fd)
    , m_path(std::move(path))
    , m_timeout(timeout)
{}

SocketStore::~SocketStore()
{
    ::close(m_fd);
}

void SocketStore::set(const std::string &key, const std::vector<char> &data)
{
    agent::StoreRequest request;
    request.op = agent::StoreRequest::Op::Set;
    request.keys = {key};
    request.value.assign(data.begin(), data.end());
    call(std::move(request), m_timeout);
}

std::vector<char> SocketStore::get(const std::string &key)
{
    agent::StoreRequest request;
    request.op = agent::StoreRequest::Op::Get;
    request.keys = {key};
    const agent::StoreReply reply = call(std::move(request), m_timeout);
    return {reply.value.begin(), reply.value.end()};
}

void SocketStore::wait(const std::vector<std::string> &keys)
{
    wait(keys, m_timeout);
}

void SocketStore::wait(const std::vector<std::string> &keys,
                       const std::chrono::milliseconds &timeout)
{
    agent::StoreRequest request;
    request.op = agent::StoreRequest::Op::Wait;
    request.keys = keys;
    // Gloo's kNoTimeout (zero) means "no limit of the caller's own": the store's still holds.
    call(std::move(request), timeout.count() > 0 ? timeout : m_timeout);
}

void SocketStore::sendAll(const std::string &bytes, Clock::time_point deadline,
                          const std::string &what)
{
    std::size_t sent = 0;
    while (sent < bytes.size()) {
        const ssize_t n
            = ::send(m_fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            sent += std::size_t(n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            fail(what + ": the host agent closed unix:" + m_path + " (" + std::strerror(errno)
                 + ")");
        if (waitFor(m_fd, POLLOUT, deadline) == 0)
            fail(what + ": unix:" + m_path + " took no request in time");
    }
}

agent::StoreReply SocketStore::call(agent::StoreRequest request, std::chrono::milliseconds timeout)
{
    const std::lock_guard lock(m_mutex);
    const std::string what = "the rendezvous store's " + describeRequest(request);
    const Clock::time_point deadline = Clock::now() + timeout;
    request.id = m_nextId++;
    sendAll(agent::encodeFrame(
                {agent::FrameKind::StoreRequest, -1, agent::encodeStoreRequest(request)}),
            deadline, what);
    for (;;) {
        auto frame = m_reader.next();
        if (!frame)
            fail(what + ": " + frame.error().message);
        if (*frame) {
            auto reply = agent::decodeStoreReply((*frame)->payload);
            if ((*frame)->kind != agent::FrameKind::StoreReply || !reply)
                fail(what + ": a malformed reply on unix:" + m_path);
            if (reply->id != request.id)
                continue; // the late answer to a request that timed out
            if (!reply->ok)
                fail(what + " was refused: " + reply->value);
            return std::move(reply).value();
        }
        if (waitFor(m_fd, POLLIN, deadline) == 0)
            fail(what + " timed out after " + seconds(timeout));
        char buffer[64 * 1024];
        const ssize_t got = ::recv(m_fd, buffer, sizeof buffer, MSG_DONTWAIT);
        if (got == 0)
            fail(what + ": the host agent closed unix:" + m_path);
        if (got < 0 && errno != EAGAIN && errno != EINTR)
            fail(what + ": reading unix:" + m_path + ": " + std::strerror(errno));
        if (got > 0)
            m_reader.feed(std::string_view(buffer, std::size_t(got)));
    }
}

} // namespace hetplan::runtime
