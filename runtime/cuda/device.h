#pragma once

// Whether this process can use a CUDA device, and the CUDA runtime's errors as the runtime's
// Errors. The only CUDA header a C++ file of the runtime needs to see (docs/gpu-host.md).

#include "core/base/result.h"

#include <string>
#include <string_view>

namespace hetplan::runtime::cuda {

struct DeviceCount
{
    int count = 0;
    std::string whyNone; // set when count is 0: the driver's own words ("no CUDA-capable device")
};

// Never throws and never aborts: a machine without a driver or a GPU gets count 0 and the reason.
DeviceCount deviceCount();

// A failed CUDA runtime call (its cudaError_t as int) as an Error: "<what>: <CUDA's message>".
Error cudaError(int code, std::string_view what);

} // namespace hetplan::runtime::cuda
