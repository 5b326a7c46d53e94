#pragma once

#include "app/cli/args.h"
#include "core/base/result.h"

#include <optional>
#include <string>
#include <string_view>

namespace hetplan::cli {

inline constexpr const char *kStandardOutput = "-";

// --out, checked before any work starts, so a long search is never lost to a bad path:
// "-" is standard output; a file must be writable (folder exists, not a folder, not
// read-only) and must not be one of the command's input files (--cluster, --model,
// --workload, --plan, --warm-start, --hosts).
Result<std::optional<std::string>> outputFromArgs(const Args &args);

// Writes to `path` as writeFileAtomic does, or to standard output for "-".
Status writeOutput(const std::string &path, std::string_view content);

} // namespace hetplan::cli
