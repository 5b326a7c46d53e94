#pragma once

#include "app/cli/args.h"
#include "core/base/result.h"

#include <optional>
#include <string>
#include <string_view>

namespace hetplan::cli {

inline constexpr const char *kStandardOutput = "-";

// An output option (--out, --report, ...), checked before any work starts, so a long search or
// a job is never lost to a bad path: "-" is standard output; a file must be writable (folder
// exists, not a folder, not read-only, not a loop of links) and must not be anything else the
// command names: another option's value (its inputs and its other outputs), a positional word
// or a file in a positional folder. Absent: nullopt.
Result<std::optional<std::string>> outputFromArgs(const Args &args,
                                                  const std::string &option = "out");

// Writes to `path` as writeFileAtomic does, or to standard output for "-".
Status writeOutput(const std::string &path, std::string_view content);

} // namespace hetplan::cli
