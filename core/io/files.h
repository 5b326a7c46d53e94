#pragma once

#include "core/base/result.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace hetplan {

inline constexpr std::size_t kMaxInputFileBytes = 64u << 20; // 64 MiB

// Reads a whole file; errors name the path and the reason (missing, a folder, too large).
Result<std::string> readTextFile(const std::string &path,
                                 std::size_t maxBytes = kMaxInputFileBytes);

// Writes to a temporary file beside `path`, flushes it to disk, then renames it over `path`:
// readers see the old or the new content, never a mix.
Status writeFileAtomic(const std::string &path, std::string_view content);

} // namespace hetplan
