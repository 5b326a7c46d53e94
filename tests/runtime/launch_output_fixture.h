#pragma once

// A piece of a rank's output as a launch job reports it (LaunchEvent::Kind::Output), for the
// tests of LaunchLines and of the app's Launch log. The host is "host-RANK".
#include "runtime/launcher/launch_job.h"

#include <string>

namespace hetplan::test {

inline LaunchEvent outputPiece(int rank, bool isStderr, std::string text)
{
    LaunchEvent e;
    e.kind = LaunchEvent::Kind::Output;
    e.rank = rank;
    e.host = "host-" + std::to_string(rank);
    e.isStderr = isStderr;
    e.text = std::move(text);
    return e;
}

} // namespace hetplan::test
