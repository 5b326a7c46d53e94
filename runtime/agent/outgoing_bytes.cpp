#include "runtime/agent/outgoing_bytes.h"

#include <cerrno>
#include <unistd.h>

namespace hetplan::agent {

void OutgoingBytes::push(std::string bytes)
{
    if (bytes.empty())
        return;
    m_bytes += bytes.size();
    m_chunks.push_back(std::move(bytes));
}

bool OutgoingBytes::writeSome(int fd)
{
    while (!m_chunks.empty()) {
        const std::string &chunk = m_chunks.front();
        const ssize_t written = ::write(fd, chunk.data() + m_offset, chunk.size() - m_offset);
        if (written < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return true;
            m_chunks.clear();
            m_offset = 0;
            m_bytes = 0;
            return false;
        }
        m_offset += std::size_t(written);
        m_bytes -= std::size_t(written);
        if (m_offset == chunk.size()) {
            m_chunks.pop_front();
            m_offset = 0;
        }
    }
    return true;
}

} // namespace hetplan::agent
