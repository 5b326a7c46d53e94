#pragma once

#include "core/base/result.h"

#include <string>

namespace hetplan::runtime {

// Whether a rank can listen on `address` (hetplan-worker's and hetplan-probe's
// --listen-address): it resolves, and one of its addresses belongs to this host. Checked before
// Gloo sees it, whose own lookup of a name that does not resolve may crash the process.
Status checkListenAddress(const std::string &address);

} // namespace hetplan::runtime
