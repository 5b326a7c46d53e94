#include "app/cli/terminal_output.h"

#include "core/base/utf8.h"

#include <iostream>
#include <mutex>
#include <string>

namespace hetplan::cli {

namespace {

std::streambuf *g_standardOutput = nullptr; // std::cout's own buffer while a filter lives

} // namespace

// Collects what a stream writes and hands it on through terminalText at each newline and each
// flush; a multi-byte character cut by a flush waits for its rest. Locked: the launcher's
// threads print too.
class TerminalFilter::Buffer : public std::streambuf
{
public:
    explicit Buffer(std::streambuf *target)
        : m_target(target)
    {}
    ~Buffer() override { emit(true); }
    Buffer(const Buffer &) = delete;
    Buffer &operator=(const Buffer &) = delete;

    std::streambuf *target() const { return m_target; }

protected:
    int_type overflow(int_type ch) override
    {
        if (traits_type::eq_int_type(ch, traits_type::eof()))
            return sync() == 0 ? traits_type::not_eof(ch) : traits_type::eof();
        const char c = traits_type::to_char_type(ch);
        return xsputn(&c, 1) == 1 ? ch : traits_type::eof();
    }

    std::streamsize xsputn(const char *text, std::streamsize count) override
    {
        const std::lock_guard lock(m_mutex);
        m_pending.append(text, std::size_t(count));
        if (m_pending.find('\n') != std::string::npos || m_pending.size() >= kChunkBytes)
            if (!emit(false))
                return 0;
        return count;
    }

    int sync() override
    {
        const std::lock_guard lock(m_mutex);
        return emit(false) && m_target->pubsync() == 0 ? 0 : -1;
    }

private:
    static constexpr std::size_t kChunkBytes = 4096;

    // Writes what is pending, but for a cut-off character at its end unless `all`.
    bool emit(bool all)
    {
        const std::size_t complete = all ? m_pending.size() : completeUtf8Length(m_pending);
        if (complete == 0)
            return true;
        const std::string text = terminalText(std::string_view(m_pending).substr(0, complete));
        m_pending.erase(0, complete);
        return m_target->sputn(text.data(), std::streamsize(text.size()))
               == std::streamsize(text.size());
    }

    std::streambuf *m_target; // not owned
    std::mutex m_mutex;
    std::string m_pending;
};

TerminalFilter::TerminalFilter()
    : m_out(std::make_unique<Buffer>(std::cout.rdbuf()))
    , m_err(std::make_unique<Buffer>(std::cerr.rdbuf()))
{
    g_standardOutput = m_out->target();
    std::cout.rdbuf(m_out.get());
    std::cerr.rdbuf(m_err.get());
}

TerminalFilter::~TerminalFilter()
{
    std::cout.flush();
    std::cerr.flush();
    std::cout.rdbuf(m_out->target());
    std::cerr.rdbuf(m_err->target());
    g_standardOutput = nullptr;
}

std::streambuf *unfilteredStandardOutput()
{
    std::cout.flush();
    return g_standardOutput != nullptr ? g_standardOutput : std::cout.rdbuf();
}

} // namespace hetplan::cli
