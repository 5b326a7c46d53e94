// The CUDA runtime, cuBLAS, NCCL and the probe's two kernels (runtime/probe/gpu_kernels.h) on
// the host, as two GPUs, so that the probe's GPU half (gpu_probe.cpp, gpu_pairs.cpp) runs where
// no GPU is: tst_probe_emulated links this file in place of libcudart, libcublas, libnccl and
// gpu_kernels.cu.
//
// What it checks: the probe's calls, in order, with their arguments (the GEMM's types, layouts
// and leading dimensions as cuBLAS validates them; every receive matched by a send of the same
// size; events recorded on their own device's streams), and the timing loop on the host's clock.
// What it cannot: timing on a device, cross-device ordering, and the kernels themselves (their
// twins below follow their arithmetic). Every call runs to completion when it is made. It keeps
// its own stubs beside cuda_model_emulation.cpp's: two devices with their streams and events,
// and a trace of the calls.

#include "tests/runtime/probe_emulation.h"

#include "runtime/cuda/model/bf16.h"
#include "runtime/probe/gpu_kernels.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <thread>

namespace emulated = hetplan::test::emulated;

namespace {

constexpr int kDevices = 2;
int currentDevice = 0;

struct Event
{
    int device = 0;
    double atS = -1; // host seconds when last recorded; -1: never
};

struct Stream
{
    int device = 0;
};

// One side of a message posted inside a group.
struct Posted
{
    void *data = nullptr;
    std::size_t bytes = 0;
    int from = 0;
    int to = 0;
};
std::vector<Posted> groupSends;
std::vector<Posted> groupRecvs;
int groupDepth = 0;

double hostSeconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

namespace hetplan::test::emulated {

Stall &stall()
{
    static Stall s;
    return s;
}

Trace &trace()
{
    static Trace t;
    return t;
}

} // namespace hetplan::test::emulated

extern "C" {

cudaError_t cudaMalloc(void **pointer, size_t bytes)
{
    if (bytes > emulated::kDeviceBytes) {
        *pointer = nullptr;
        return cudaErrorMemoryAllocation;
    }
    *pointer = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
    return *pointer != nullptr ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaFree(void *pointer)
{
    std::free(pointer);
    return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void *pointer, int value, size_t bytes, cudaStream_t)
{
    std::memset(pointer, value, bytes);
    return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t)
{
    return cudaSuccess;
}
// The rest of the runtime's DeviceBuffer (runtime/cuda/device_buffer.cpp), which the probe
// shares: host memory stands in for the device's, and the stream-ordered pool has nothing to keep.
cudaError_t cudaDeviceSynchronize()
{
    return cudaSuccess;
}
cudaError_t cudaGetDevice(int *device)
{
    *device = currentDevice;
    return cudaSuccess;
}
cudaError_t cudaMemcpy(void *to, const void *from, size_t bytes, cudaMemcpyKind)
{
    std::memcpy(to, from, bytes);
    return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void *to, const void *from, size_t bytes, cudaMemcpyKind, cudaStream_t)
{
    std::memcpy(to, from, bytes);
    return cudaSuccess;
}
cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *pool, int)
{
    *pool = nullptr;
    return cudaSuccess;
}
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t, cudaMemPoolAttr, void *)
{
    return cudaSuccess;
}
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t, cudaMemPoolAttr, void *value)
{
    *static_cast<unsigned long long *>(value) = 0;
    return cudaSuccess;
}
cudaError_t cudaGetLastError()
{
    return cudaSuccess;
}
const char *cudaGetErrorString(cudaError_t)
{
    return "error in the emulated CUDA runtime";
}
const char *cudaGetErrorName(cudaError_t)
{
    return "cudaErrorEmulated";
}
cudaError_t cudaGetDeviceCount(int *count)
{
    *count = kDevices;
    return cudaSuccess;
}
cudaError_t cudaSetDevice(int device)
{
    if (device < 0 || device >= kDevices)
        return cudaErrorInvalidDevice;
    currentDevice = device;
    return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *props, int device)
{
    *props = cudaDeviceProp{};
    std::strncpy(props->name, "Emulated GPU", sizeof props->name - 1);
    props->totalGlobalMem = emulated::kDeviceBytes;
    props->multiProcessorCount = 2;
    props->l2CacheSize = 1 << 16;
    return device >= 0 && device < kDevices ? cudaSuccess : cudaErrorInvalidDevice;
}
cudaError_t cudaStreamCreate(cudaStream_t *stream)
{
    *stream = reinterpret_cast<cudaStream_t>(new Stream{currentDevice});
    return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    delete reinterpret_cast<Stream *>(stream);
    return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int)
{
    *event = reinterpret_cast<cudaEvent_t>(new Event{currentDevice});
    return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    delete reinterpret_cast<Event *>(event);
    return cudaSuccess;
}
// As CUDA: an event is recorded only on a stream of its own device.
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    auto *e = reinterpret_cast<Event *>(event);
    const int streamDevice = stream ? reinterpret_cast<Stream *>(stream)->device : currentDevice;
    if (e->device != streamDevice)
        return cudaErrorInvalidResourceHandle;
    e->atS = hostSeconds();
    return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t)
{
    return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    const auto *s = reinterpret_cast<Event *>(start);
    const auto *e = reinterpret_cast<Event *>(end);
    if (s->atS < 0 || e->atS < 0)
        return cudaErrorInvalidResourceHandle;
    *ms = float((e->atS - s->atS) * 1e3);
    return cudaSuccess;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t event, unsigned int)
{
    return reinterpret_cast<Event *>(event)->atS < 0 ? cudaErrorInvalidResourceHandle : cudaSuccess;
}
cudaError_t cudaDeviceCanAccessPeer(int *canAccess, int device, int peer)
{
    *canAccess = device != peer ? 1 : 0;
    return cudaSuccess;
}
cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int)
{
    return peer != currentDevice ? cudaSuccess : cudaErrorInvalidDevice;
}
// As CUDA: the stream must belong to one of the two devices.
cudaError_t cudaMemcpyPeerAsync(void *to, int toDevice, const void *from, int fromDevice,
                                size_t bytes, cudaStream_t stream)
{
    const int streamDevice = stream ? reinterpret_cast<Stream *>(stream)->device : currentDevice;
    if (streamDevice != toDevice && streamDevice != fromDevice)
        return cudaErrorInvalidValue;
    std::memmove(to, from, bytes);
    emulated::Stall &stall = emulated::stall();
    if (bytes > stall.bytes)
        stall.seconds = 0;
    else if (bytes == stall.bytes && stall.seconds > 0)
        std::this_thread::sleep_for(std::chrono::duration<double>(stall.seconds));
    emulated::trace().messages.push_back({"peer", fromDevice, toDevice, bytes});
    return cudaSuccess;
}

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
    static int token = 0;
    *handle = reinterpret_cast<cublasHandle_t>(&token);
    return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasDestroy_v2(cublasHandle_t)
{
    return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetStream_v2(cublasHandle_t, cudaStream_t)
{
    return CUBLAS_STATUS_SUCCESS;
}
const char *cublasGetStatusString(cublasStatus_t)
{
    return "CUBLAS_STATUS_INVALID_VALUE (emulated)";
}

// cuBLAS's own checks of the arguments, and the call kept for the test. No arithmetic: the
// probe reads no result, and cuda_model_emulation.cpp checks cuda::gemm's.
cublasStatus_t CUBLASWINAPI cublasGemmStridedBatchedEx(
    cublasHandle_t, cublasOperation_t transA, cublasOperation_t transB, int m, int n, int k,
    const void *, const void *, cudaDataType typeA, int lda, long long, const void *,
    cudaDataType typeB, int ldb, long long, const void *, void *, cudaDataType typeC, int ldc,
    long long, int batch, cublasComputeType_t compute, cublasGemmAlgo_t)
{
    const bool aT = transA != CUBLAS_OP_N;
    const bool bT = transB != CUBLAS_OP_N;
    if (m < 0 || n < 0 || k < 0 || batch < 1 || lda < std::max(1, aT ? k : m)
        || ldb < std::max(1, bT ? n : k) || ldc < std::max(1, m) || compute != CUBLAS_COMPUTE_32F
        || typeA != CUDA_R_16BF || typeB != CUDA_R_16BF
        || (typeC != CUDA_R_16BF && typeC != CUDA_R_32F))
        return CUBLAS_STATUS_INVALID_VALUE;
    emulated::Trace &t = emulated::trace();
    const emulated::GemmCall call{aT, bT, m, n, k, lda, ldb, ldc, typeC == CUDA_R_16BF};
    if (std::find(t.gemms.begin(), t.gemms.end(), call) == t.gemms.end())
        t.gemms.push_back(call);
    ++t.gemmCalls;
    return CUBLAS_STATUS_SUCCESS;
}

// NCCL: one communicator per device; sends and receives are matched when the outermost group
// ends, each receive with the send of the same pair and size.
ncclResult_t ncclCommInitAll(ncclComm_t *comms, int count, const int *)
{
    if (count > kDevices)
        return ncclInvalidArgument;
    for (int d = 0; d < count; ++d)
        comms[d] = reinterpret_cast<ncclComm_t>(new int(d));
    return ncclSuccess;
}
ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    delete reinterpret_cast<int *>(comm);
    return ncclSuccess;
}
const char *ncclGetErrorString(ncclResult_t)
{
    return "invalid usage (emulated)";
}
const char *ncclGetLastError(ncclComm_t)
{
    return "";
}
ncclResult_t ncclGroupStart()
{
    ++groupDepth;
    return ncclSuccess;
}
ncclResult_t ncclSend(const void *data, size_t count, ncclDataType_t type, int peer,
                      ncclComm_t comm, cudaStream_t)
{
    if (type != ncclChar)
        return ncclInvalidArgument;
    groupSends.push_back({const_cast<void *>(data), count, *reinterpret_cast<int *>(comm), peer});
    return ncclSuccess;
}
ncclResult_t ncclRecv(void *data, size_t count, ncclDataType_t type, int peer, ncclComm_t comm,
                      cudaStream_t)
{
    if (type != ncclChar)
        return ncclInvalidArgument;
    groupRecvs.push_back({data, count, peer, *reinterpret_cast<int *>(comm)});
    return ncclSuccess;
}
ncclResult_t ncclGroupEnd()
{
    if (groupDepth == 0)
        return ncclInvalidUsage;
    if (--groupDepth > 0)
        return ncclSuccess;
    const std::vector<Posted> sends = std::move(groupSends);
    const std::vector<Posted> recvs = std::move(groupRecvs);
    groupSends.clear();
    groupRecvs.clear();
    if (sends.size() != recvs.size())
        return ncclInvalidUsage;
    for (std::size_t i = 0; i < sends.size(); ++i) {
        const Posted &s = sends[i];
        const Posted &r = recvs[i];
        if (s.from != r.from || s.to != r.to || s.bytes != r.bytes)
            return ncclInvalidUsage;
        std::memmove(r.data, s.data, s.bytes);
        emulated::trace().messages.push_back({"nccl", s.from, s.to, s.bytes});
    }
    return ncclSuccess;
}

} // extern "C"

// The twins of gpu_kernels.cu, the same arithmetic on the host.
namespace hetplan::runtime::probe {

Status fillDistinctBf16(void *data, std::size_t count, cudaStream_t)
{
    auto *out = static_cast<cuda::Bf16 *>(data);
    for (std::size_t i = 0; i < count; ++i)
        out[i] = cuda::toBf16((1.0f / 64) * float(int(i % 17) - 8));
    return okStatus();
}

Status launchTriad(void *a, const void *b, const void *c, std::size_t count, int, cudaStream_t)
{
    auto *x = static_cast<float *>(a);
    const auto *y = static_cast<const float *>(b);
    const auto *z = static_cast<const float *>(c);
    for (std::size_t i = 0; i < 4 * count; ++i)
        x[i] = y[i] + 3.0f * z[i];
    return okStatus();
}

} // namespace hetplan::runtime::probe
