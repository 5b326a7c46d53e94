#pragma once

// Where a failed GPU library call was made, for the one error boundary per library
// (cuda_status.h, cublas_status.h, nccl_status.h; docs/runtime.md#the-gpu-backend). The caller's
// file and line come from default arguments (__builtin_FILE / __builtin_LINE), which GCC, Clang
// and nvcc fill in at the call, also in the C++17 of the .cu files.

#include <string>
#include <string_view>

namespace hetplan::runtime::cuda {

// "runtime/cuda/nccl_comms.cpp:120": the file from the repository's top folder on.
std::string callSite(const char *file, int line);

// The start of every boundary's message: "<what> failed at <file:line>: <library's words>".
std::string failedCall(std::string_view what, const char *file, int line, std::string_view words);

} // namespace hetplan::runtime::cuda
