#pragma once

#include "runtime/launcher/launch_job.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace hetplan {

// A launch's rank output as whole lines (docs/launcher.md, "Output"): the pieces of each
// (rank, stream) are kept apart until a newline completes a line, which is then decoded once as
// UTF-8, so a character split across pieces stays whole. The CLI prints these lines and the
// app's Launch panel shows them. Not thread-safe: the caller serializes events.
class LaunchLines
{
public:
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
    using Key = std::pair<int, bool>;     // (rank, stderr)
    std::map<Key, std::string> m_partial; // bytes after the last newline
    std::map<int, std::string> m_host;
};

} // namespace hetplan
