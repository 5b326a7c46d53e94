#pragma once

// Whether this process can use a CUDA device. Needs no CUDA header (docs/gpu-host.md); the CUDA
// runtime's errors become Errors through cudaCall (cuda_status.h).

#include "core/base/result.h"

#include <string>

namespace hetplan::runtime::cuda {

struct DeviceCount
{
    int count = 0;
    std::string whyNone; // set when count is 0: the driver's own words ("no CUDA-capable device")
};

// Never throws and never aborts: a machine without a driver or a GPU gets count 0 and the reason.
DeviceCount deviceCount();

} // namespace hetplan::runtime::cuda
