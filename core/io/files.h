#pragma once

#include "core/base/result.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace hetplan {

inline constexpr std::size_t kMaxInputFileBytes = 64u << 20; // 64 MiB

// Reads a whole file; errors name the path and the reason (missing, a folder, too large). A
// FIFO or a device is read too, but one that stays silent for a few seconds (a FIFO without a
// writer) is an error rather than a wait forever.
Result<std::string> readTextFile(const std::string &path,
                                 std::size_t maxBytes = kMaxInputFileBytes);

// Saves `content` at `path`. A regular file (or a new one) is written to a temporary file
// beside it, flushed, then renamed over it: readers see the old or the new content, never a
// mix. A symbolic link is followed and its target replaced the same way. A device or a FIFO
// (/dev/null, /dev/full, a pipe) is written in place, never replaced. A read-only file is
// refused, not replaced.
Status writeFileAtomic(const std::string &path, std::string_view content);

// Whether writeFileAtomic(path, ...) can succeed, checked without writing: the folder exists
// and is writable, `path` is not a folder and not a read-only file. For checks before long
// work whose result would otherwise be lost.
Status checkWritable(const std::string &path);

// Whether `path` is a regular file this process can read, checked without reading it and
// without a blocking open (a FIFO would wait for a writer forever): stat first, then a
// non-blocking open. For files another library opens itself (an SSH identity, known_hosts).
// Errors name the path and what it is instead (missing, a folder, a FIFO, unreadable).
Status checkReadableFile(const std::string &path);

// `path` with a leading "~/" as this user's home ($HOME), as ssh reads it; else unchanged.
std::string expandHome(const std::string &path);

// Both paths name one existing file (through links, or the same file under two names).
bool sameFile(const std::string &a, const std::string &b);

} // namespace hetplan
