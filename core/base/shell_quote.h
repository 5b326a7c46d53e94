#pragma once

#include <string>

namespace hetplan {

// `text` as one word of a POSIX shell command line, single-quoted: the launcher's remote
// commands and the Slurm script both hand words to a shell (docs/launcher.md, docs/export.md).
std::string shellQuote(const std::string &text);

} // namespace hetplan
