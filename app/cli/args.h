#pragma once

#include "core/base/command_options.h"

namespace hetplan::cli {

// A subcommand's parsed command line: core's option reader, the one hetplan-worker and
// hetplan-probe use too. Anything not declared by the subcommand is an error (exit 2).
using Args = CommandOptions;

} // namespace hetplan::cli
