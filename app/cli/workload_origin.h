#pragma once

#include "core/io/workload_origin.h"
#include "core/model/workload.h"

#include <ostream>

namespace hetplan::cli {

// Where the workload of a command came from (core/io/workload_origin.h), so every plan and
// evaluate output can say it: a person who copied an example cluster must see that its
// bundled workload was not applied.
// "Workload (defaults): train, global_batch 1 (default), ..." plus one line per note.
void printWorkload(std::ostream &out, const Workload &workload, const WorkloadOrigin &origin);

} // namespace hetplan::cli
