#pragma once

// What hetplan-cli prints reaches a terminal: remote ranks' output, names read from files,
// messages quoting both. While a TerminalFilter lives, std::cout and std::cerr pass everything
// through terminalText (core/base/utf8.h), so no escape sequence in them reaches the terminal.

#include <memory>
#include <streambuf>

namespace hetplan::cli {

class TerminalFilter
{
public:
    TerminalFilter();
    ~TerminalFilter(); // flushes and restores both streams
    TerminalFilter(const TerminalFilter &) = delete;
    TerminalFilter &operator=(const TerminalFilter &) = delete;

private:
    class Buffer;
    std::unique_ptr<Buffer> m_out;
    std::unique_ptr<Buffer> m_err;
};

// Standard output as the process got it, for a file's content written there on request
// (`--out -`), which is data and passes unchanged. std::cout is flushed first.
std::streambuf *unfilteredStandardOutput();

} // namespace hetplan::cli
