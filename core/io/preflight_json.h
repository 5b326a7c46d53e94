#pragma once

#include "core/launch/preflight_report.h"

#include <string>

namespace hetplan {

// A pre-flight's report as hetplan.preflight/1 (docs/launcher.md, "Pre-flight").
std::string writePreflightJson(const PreflightReport &report);

} // namespace hetplan
