#pragma once

// The rendezvous store's keys, held by the launcher for the whole job (docs/launcher.md,
// "The host agent"): a set is answered at once, a get or a wait once its keys exist. No
// sockets here: the caller passes requests in and sends the replies that come out.

#include "runtime/agent/agent_protocol.h"

#include <map>
#include <string>
#include <vector>

namespace hetplan::agent {

class StoreKeys
{
public:
    // A reply now due, for the asker that sent its request (a host's index, a socket …).
    struct Due
    {
        int asker = 0;
        StoreReply reply;
    };

    // The store holds at most this many bytes of keys and values; a set beyond is refused.
    static constexpr std::size_t kMaxBytes = std::size_t(64) << 20;

    // Applies `request` from `asker`; returns every reply it makes due, its own among them
    // when it can be answered now.
    std::vector<Due> handle(int asker, const StoreRequest &request);
    // Drops the waiting requests of an asker that is gone.
    void forget(int asker);
    std::size_t waitingRequests() const { return m_waiting.size(); }

private:
    struct Waiting
    {
        int asker = 0;
        StoreRequest request;
    };
    bool answerable(const StoreRequest &request) const;
    StoreReply answer(const StoreRequest &request) const;

    std::map<std::string, std::string> m_values;
    std::size_t m_bytes = 0;
    std::vector<Waiting> m_waiting;
};

} // namespace hetplan::agent
