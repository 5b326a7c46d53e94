#pragma once

#include "runtime/launcher/launch_job.h"

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hetplan {

// A launch's rank output as whole lines (docs/launcher.md, "Output"): the pieces of each
// (rank, stream) are kept apart until a newline completes a line, which is then decoded once as
// UTF-8, so a character split across pieces stays whole. A line longer than kMaxLineBytes is
// handed out cut at that length with kCutMarker appended, and the rest of it is dropped up to
// its newline, so output without newlines holds at most kMaxLineBytes per (rank, stream). The
// CLI prints these lines and the app's Launch panel shows them. Not thread-safe: the caller
// serializes events.
class LaunchLines
{
public:
    static constexpr std::size_t kMaxLineBytes = std::size_t{64} * 1024;
    static constexpr std::string_view kCutMarker = " [hetplan: line cut at 64 KiB]";

    struct Line
    {
        int rank = -1;
        bool isStderr = false;
        std::string host; // the destination that printed it
        std::string text; // valid UTF-8, without the newline or a carriage return before it
    };

    // The lines an Output event completes, in order; nothing for any other event.
    std::vector<Line> add(const LaunchEvent &event);
    // What is left of unfinished lines (a rank's last words without a newline), as lines,
    // by rank and then stdout before stderr; then forgets them.
    std::vector<Line> flush();

private:
    using Key = std::pair<int, bool>; // (rank, stderr)
    struct Partial
    {
        std::string bytes; // after the last newline, at most kMaxLineBytes
        bool cut = false;  // handed out already: drop the rest up to the newline
    };
    std::map<Key, Partial> m_partial;
    std::map<int, std::string> m_host;
};

} // namespace hetplan
