#include "runtime/cuda/cublas_status.h"

#include "runtime/cuda/call_site.h"

#include <string>

namespace hetplan::runtime::cuda {

Status cublasCall(cublasStatus_t code, std::string_view what, const char *file, int line)
{
    if (code == CUBLAS_STATUS_SUCCESS)
        return okStatus();
    return Error{ErrorKind::Internal, failedCall(what, file, line, cublasGetStatusString(code))};
}

} // namespace hetplan::runtime::cuda
