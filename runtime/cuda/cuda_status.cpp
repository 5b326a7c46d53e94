#include "runtime/cuda/cuda_status.h"

#include "runtime/cuda/call_site.h"

#include <string>

namespace hetplan::runtime::cuda {

Status cudaCall(cudaError_t code, std::string_view what, const char *file, int line)
{
    if (code == cudaSuccess)
        return okStatus();
    std::string message = failedCall(what, file, line, cudaGetErrorString(code));
    message += " (";
    message += cudaGetErrorName(code);
    message += ')';
    return Error{ErrorKind::Internal, std::move(message)};
}

} // namespace hetplan::runtime::cuda
