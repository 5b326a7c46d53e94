#pragma once

// What the emulated CUDA, cuBLAS and NCCL of probe_emulation.cpp saw, for tst_probe_emulated.

#include <cstddef>
#include <string>
#include <vector>

namespace hetplan::test::emulated {

// Each emulated GPU's memory; a larger cudaMalloc fails as on a GPU.
inline constexpr std::size_t kDeviceBytes = std::size_t(1) << 30;

// One cublasGemmStridedBatchedEx as cuBLAS got it (column-major, operands already swapped).
struct GemmCall
{
    bool transA = false;
    bool transB = false;
    int m = 0;
    int n = 0;
    int k = 0;
    int lda = 0;
    int ldb = 0;
    int ldc = 0;
    bool outputBf16 = false;

    bool operator==(const GemmCall &) const = default;
};

// One message between devices: a peer copy or a matched NCCL send and receive.
struct Message
{
    std::string kind; // "peer" or "nccl"
    int from = 0;
    int to = 0;
    std::size_t bytes = 0;
};

struct Trace
{
    std::vector<GemmCall> gemms; // each distinct call once, in the order first seen
    std::size_t gemmCalls = 0;
    std::vector<Message> messages;
};

Trace &trace();

// A stalled host, to provoke: each peer copy of `bytes` takes `seconds` longer until the first
// larger copy (the sweep's next size) ends the stall.
struct Stall
{
    std::size_t bytes = 0;
    double seconds = 0;
};

Stall &stall();

} // namespace hetplan::test::emulated
