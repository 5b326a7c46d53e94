// NCCL for one process with communicators of one member, and the worker's fp32 ⇄ bf16
// conversions (runtime/cuda/float_ops.h), on the host, logged as cuda_emulation_log.h says: so
// the GPU backend (runtime/worker/cuda_backend.h) runs where no GPU is. A collective of one
// member leaves its buffer as it is; a send and a receive of one NCCL group between a rank and
// itself copy in the order they were posted. Linked in place of libnccl and the .cu files.

#include "cuda_emulation_log.h"
#include "runtime/cuda/float_ops.h"
#include "runtime/cuda/model/bf16.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <nccl.h>

namespace {

namespace emulation = hetplan::runtime::cuda::emulation;

std::size_t bytesOf(ncclDataType_t type)
{
    return type == ncclBfloat16 || type == ncclFloat16 ? 2 : 4;
}

void called(const char *name, std::size_t count, cudaStream_t stream)
{
    emulation::note({emulation::Kind::Nccl, stream, nullptr, name, count});
}

struct Posted
{
    const void *from = nullptr;
    void *to = nullptr;
    std::size_t bytes = 0;
};

// Sends and receives of the open NCCL group, matched in order when it ends.
std::deque<Posted> &sends()
{
    static std::deque<Posted> posted;
    return posted;
}
std::deque<Posted> &receives()
{
    static std::deque<Posted> posted;
    return posted;
}

// What is left unmatched would wait for a peer that never comes; here it is dropped.
void match()
{
    while (!sends().empty() && !receives().empty()) {
        std::memmove(receives().front().to, sends().front().from,
                     std::min(sends().front().bytes, receives().front().bytes));
        sends().pop_front();
        receives().pop_front();
    }
    sends().clear();
    receives().clear();
}

} // namespace

extern "C" {

ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
    std::memset(id, 7, sizeof(*id));
    return ncclSuccess;
}
ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int, ncclUniqueId, int, ncclConfig_t *)
{
    static int token = 0;
    *comm = reinterpret_cast<ncclComm_t>(&token);
    return ncclSuccess;
}
ncclResult_t ncclCommAbort(ncclComm_t)
{
    return ncclSuccess;
}
ncclResult_t ncclCommGetAsyncError(ncclComm_t, ncclResult_t *state)
{
    *state = ncclSuccess;
    return ncclSuccess;
}
const char *ncclGetErrorString(ncclResult_t)
{
    return "error in the emulated NCCL";
}
const char *ncclGetLastError(ncclComm_t)
{
    return "";
}
ncclResult_t ncclGroupStart()
{
    return ncclSuccess;
}
ncclResult_t ncclGroupEnd()
{
    match();
    return ncclSuccess;
}
ncclResult_t ncclAllReduce(const void *from, void *to, size_t count, ncclDataType_t type,
                           ncclRedOp_t, ncclComm_t, cudaStream_t stream)
{
    called("allReduce", count, stream);
    std::memmove(to, from, count * bytesOf(type));
    return ncclSuccess;
}
ncclResult_t ncclBroadcast(const void *from, void *to, size_t count, ncclDataType_t type, int,
                           ncclComm_t, cudaStream_t stream)
{
    called("broadcast", count, stream);
    std::memmove(to, from, count * bytesOf(type));
    return ncclSuccess;
}
ncclResult_t ncclSend(const void *data, size_t count, ncclDataType_t type, int, ncclComm_t,
                      cudaStream_t stream)
{
    called("send", count, stream);
    sends().push_back({data, nullptr, count * bytesOf(type)});
    return ncclSuccess;
}
ncclResult_t ncclRecv(void *data, size_t count, ncclDataType_t type, int, ncclComm_t,
                      cudaStream_t stream)
{
    called("recv", count, stream);
    receives().push_back({nullptr, data, count * bytesOf(type)});
    return ncclSuccess;
}

} // extern "C"

namespace hetplan::runtime::cuda {

cudaError_t bf16ToFloat(const std::uint16_t *in, std::size_t count, float *out, CUstream_st *stream)
{
    emulation::note({emulation::Kind::Kernel, stream, nullptr, "fromWire", count});
    for (std::size_t i = 0; i < count; ++i)
        out[i] = fromBf16(Bf16{in[i]});
    return cudaSuccess;
}

cudaError_t floatToBf16(const float *in, std::size_t count, std::uint16_t *out, CUstream_st *stream,
                        float factor)
{
    emulation::note({emulation::Kind::Kernel, stream, nullptr, "toWire", count});
    for (std::size_t i = 0; i < count; ++i)
        out[i] = toBf16(in[i] * factor).bits;
    return cudaSuccess;
}

} // namespace hetplan::runtime::cuda
