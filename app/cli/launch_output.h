#pragma once

#include "runtime/launcher/launch_job.h"
#include "runtime/launcher/launch_lines.h"

#include <mutex>
#include <ostream>
#include <string>
#include <vector>

namespace hetplan::cli {

// Prints a launch job's events as they come, from any of its threads: every rank's output
// line by line with a "[rank R HOST] " prefix (stdout to `out`, stderr to `err`), phases and
// messages prefixed "hetplan-cli launch: ".
class LaunchOutput
{
public:
    LaunchOutput(std::ostream &out, std::ostream &err)
        : m_out(out)
        , m_err(err)
    {}
    void operator()(const LaunchEvent &event);
    // Prints what is left of unfinished lines (a rank's last words without a newline).
    void flush();

private:
    void print(const std::vector<LaunchLines::Line> &lines);

    std::ostream &m_out;
    std::ostream &m_err;
    std::mutex m_mutex;
    LaunchLines m_lines;
};

} // namespace hetplan::cli
