#pragma once

// NCCL's error boundary (docs/runtime.md#the-gpu-backend): every NCCL call of the runtime and
// the probe goes through ncclCall.

#include "core/base/result.h"

#include <nccl.h>
#include <string_view>

namespace hetplan::runtime::cuda {

// okStatus() for ncclSuccess (and ncclInProgress, which a non-blocking communicator returns
// while its work goes on), else "<what> failed at <file:line>: <NCCL's message> (<NCCL's last
// warning>)".
Status ncclCall(ncclResult_t code, std::string_view what, const char *file = __builtin_FILE(),
                int line = __builtin_LINE());

} // namespace hetplan::runtime::cuda
