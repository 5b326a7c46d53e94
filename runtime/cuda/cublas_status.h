#pragma once

// cuBLAS's error boundary (docs/runtime.md#the-gpu-backend): every cuBLAS call of the runtime
// and the probe goes through cublasCall.

#include "core/base/result.h"

#include <cublas_api.h>
#include <string_view>

namespace hetplan::runtime::cuda {

// okStatus() for CUBLAS_STATUS_SUCCESS, else "<what> failed at <file:line>: <cuBLAS's message>".
Status cublasCall(cublasStatus_t code, std::string_view what, const char *file = __builtin_FILE(),
                  int line = __builtin_LINE());

} // namespace hetplan::runtime::cuda
