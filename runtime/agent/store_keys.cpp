// StoreKeys (store_keys.h): Gloo's Store semantics (set; get and wait block until the keys
// exist) without blocking anyone: an unanswerable request waits in a list until a set makes
// it answerable. The asker bounds its own wait and forgets the request on timeout.
#include "runtime/agent/store_keys.h"

#include <algorithm>

namespace hetplan::agent {

bool StoreKeys::answerable(const StoreRequest &request) const
{
    return std::all_of(request.keys.begin(), request.keys.end(),
                       [this](const std::string &key) { return m_values.contains(key); });
}

StoreReply StoreKeys::answer(const StoreRequest &request) const
{
    StoreReply reply;
    reply.id = request.id;
    if (request.op == StoreRequest::Op::Get)
        reply.value = m_values.at(request.keys.front());
    return reply;
}

std::vector<StoreKeys::Due> StoreKeys::handle(int asker, const StoreRequest &request)
{
    std::vector<Due> due;
    if (request.op != StoreRequest::Op::Set) {
        if (answerable(request))
            due.push_back({asker, answer(request)});
        else
            m_waiting.push_back({asker, request});
        return due;
    }
    const std::string &key = request.keys.front();
    const auto old = m_values.find(key);
    const std::size_t oldBytes = old == m_values.end() ? 0 : key.size() + old->second.size();
    const std::size_t newBytes = key.size() + request.value.size();
    if (m_bytes - oldBytes + newBytes > kMaxBytes) {
        due.push_back(
            {asker,
             {request.id, false,
              "the rendezvous store is full (" + std::to_string(kMaxBytes >> 20) + " MiB)"}});
        return due;
    }
    m_bytes = m_bytes - oldBytes + newBytes;
    m_values[key] = request.value;
    due.push_back({asker, {request.id, true, {}}});
    // Every waiting request this set completes is answered, in the order they came.
    std::erase_if(m_waiting, [&](const Waiting &w) {
        if (!answerable(w.request))
            return false;
        due.push_back({w.asker, answer(w.request)});
        return true;
    });
    return due;
}

void StoreKeys::forget(int asker)
{
    std::erase_if(m_waiting, [asker](const Waiting &w) { return w.asker == asker; });
}

} // namespace hetplan::agent
