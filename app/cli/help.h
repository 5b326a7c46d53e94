#pragma once

#include <optional>
#include <string>

namespace hetplan::cli {

// The whole CLI's synopsis, for `hetplan-cli --help` and for mistakes.
std::string usage();
// One command's synopsis and options (`hetplan-cli COMMAND --help`); none for an unknown one.
std::optional<std::string> commandHelp(const std::string &command);
// `launch --help` and `probe --help` (launch_help.cpp).
std::string launchHelp();
std::string probeHostsHelp();

} // namespace hetplan::cli
