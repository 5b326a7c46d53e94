#pragma once

#include "core/model/backend_kind.h"
#include "core/model/gpu_type.h"

namespace hetplan {

// Whether a run on `backend` exercised devices of `type` (docs/calibration.md, "Which runs
// identify which figures"): a CPU run stands in for a plan's GPUs (a rehearsal), so it measures
// the cluster's CPU types only, a GPU run its GPU types only.
inline bool ranOn(BackendKind backend, const GpuType &type)
{
    return isCpuType(type) == (backend == BackendKind::Gloo);
}

} // namespace hetplan
