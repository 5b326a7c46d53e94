#include "runtime/cuda/nccl_status.h"

#include "runtime/cuda/call_site.h"

#include <string>

namespace hetplan::runtime::cuda {

Status ncclCall(ncclResult_t code, std::string_view what, const char *file, int line)
{
    if (code == ncclSuccess || code == ncclInProgress)
        return okStatus();
    std::string message = failedCall(what, file, line, ncclGetErrorString(code));
    if (const char *last = ncclGetLastError(nullptr); last != nullptr && *last != '\0') {
        message += " (";
        message += last;
        message += ')';
    }
    return Error{ErrorKind::Internal, std::move(message)};
}

} // namespace hetplan::runtime::cuda
