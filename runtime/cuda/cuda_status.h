#pragma once

// The CUDA runtime's error boundary (docs/runtime.md#the-gpu-backend): every CUDA runtime call
// of the runtime and the probe goes through cudaCall, which turns a failure into an Error naming
// the call, where it was made and CUDA's own words.

#include "core/base/result.h"

#include <cuda_runtime_api.h>
#include <string_view>

namespace hetplan::runtime::cuda {

// okStatus() for cudaSuccess, else "<what> failed at <file:line>: <CUDA's message> (<error name>)".
Status cudaCall(cudaError_t code, std::string_view what, const char *file = __builtin_FILE(),
                int line = __builtin_LINE());

} // namespace hetplan::runtime::cuda
