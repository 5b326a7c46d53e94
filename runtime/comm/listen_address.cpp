#include "runtime/comm/listen_address.h"

#include <cerrno>
#include <cstring>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

namespace hetplan::runtime {
namespace {

// Binds a socket to `address` on a free port, as Gloo's TCP device will.
bool bindable(const addrinfo &address)
{
    const int fd
        = ::socket(address.ai_family, address.ai_socktype | SOCK_CLOEXEC, address.ai_protocol);
    if (fd < 0)
        return false;
    const bool bound = ::bind(fd, address.ai_addr, address.ai_addrlen) == 0;
    ::close(fd);
    return bound;
}

} // namespace

Status checkListenAddress(const std::string &address)
{
    const std::string option = "--listen-address " + address;
    const std::string valid = "; valid: this host's address (or a name of it) that its peers reach";
    if (address.empty())
        return badInput("--listen-address is empty" + valid);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    addrinfo *found = nullptr;
    if (const int rc = ::getaddrinfo(address.c_str(), nullptr, &hints, &found); rc != 0) {
        const std::string why = rc == EAI_SYSTEM ? std::strerror(errno) : ::gai_strerror(rc);
        return badInput(option + ": does not resolve (" + why + ")" + valid);
    }
    bool local = false;
    for (const addrinfo *a = found; a != nullptr && !local; a = a->ai_next)
        local = bindable(*a);
    ::freeaddrinfo(found);
    if (!local)
        return badInput(option + ": no address it resolves to belongs to this host" + valid);
    return okStatus();
}

} // namespace hetplan::runtime
