#pragma once

// Bytes waiting for a non-blocking descriptor that may not take them all at once: the agent's
// frames to the launcher, and its store replies to a rank (docs/launcher.md, "The host agent").
// The owner bounds what it queues by looking at queuedBytes().

#include <cstddef>
#include <deque>
#include <string>

namespace hetplan::agent {

class OutgoingBytes
{
public:
    void push(std::string bytes);
    std::size_t queuedBytes() const { return m_bytes; }
    bool empty() const { return m_bytes == 0; }
    // Writes what `fd` takes now. False when the reader is gone or the write failed for another
    // reason than a full pipe; the bytes are then dropped.
    bool writeSome(int fd);

private:
    std::deque<std::string> m_chunks;
    std::size_t m_offset = 0; // into m_chunks.front()
    std::size_t m_bytes = 0;
};

} // namespace hetplan::agent
