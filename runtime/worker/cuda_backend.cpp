#include "runtime/worker/cuda_backend.h"

#include "runtime/cuda/device.h"
#include "runtime/cuda/device_buffer.h"
#include "runtime/cuda/float_ops.h"
#include "runtime/worker/executor.h"

#include <algorithm>

namespace hetplan::runtime {
namespace {

Status checked(int code, std::string_view what)
{
    return code == cudaSuccess ? okStatus() : Status(cuda::cudaError(code, what));
}

} // namespace

CudaBackend::CudaBackend(cudaStream_t compute)
    : m_compute(compute)
{}

CudaBackend::~CudaBackend()
{
    m_comms.reset(); // aborts the communicators before their stream's owner goes
    if (m_compute != nullptr)
        cudaStreamDestroy(m_compute);
}

Result<std::unique_ptr<CudaBackend>> CudaBackend::open(const CommOptions &options, int worldRank,
                                                       int worldSize, int device)
{
    const cuda::DeviceCount devices = cuda::deviceCount();
    if (devices.count == 0)
        return badInput("--backend cuda: no usable CUDA device: " + devices.whyNone);
    if (device < 0 || device >= devices.count)
        return badInput("--device " + std::to_string(device) + ": this host has "
                        + std::to_string(devices.count) + " CUDA device(s), valid: 0.."
                        + std::to_string(devices.count - 1));
    if (Status s = checked(cudaSetDevice(device), "cudaSetDevice(" + std::to_string(device) + ")");
        !s)
        return s.error();
    // The step's allocations stay mapped between synchronisations (docs/runtime.md
    // "Device memory").
    if (Status s = cuda::keepPoolReserved(); !s)
        return s.error();
    cudaStream_t compute = nullptr;
    if (Status s = checked(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking),
                           "creating the compute stream");
        !s)
        return s.error();
    std::unique_ptr<CudaBackend> backend(new CudaBackend(compute));
    auto comms = cuda::NcclComms::open(options, worldRank, worldSize, compute);
    if (!comms)
        return comms.error();
    backend->m_comms = std::move(comms).value();
    backend->sampleMemory();
    return backend;
}

Status CudaBackend::connect(const JobProgram &program)
{
    std::vector<cuda::NcclGroup> groups;
    for (const GroupSpec &spec : Executor::groupsToConnect(program)) {
        cuda::NcclGroup g{spec.key, spec.members, std::nullopt};
        for (const Group &planned : program.groups)
            if (planned.key == spec.key)
                g.transport = planned.transport;
        groups.push_back(std::move(g));
    }
    Status connected = m_comms->connect(groups);
    sampleMemory();
    return connected;
}

Result<Floats> CudaBackend::allocate(std::size_t count)
{
    // Stream-ordered on the compute stream: allocating and freeing never stall the device (a
    // plain cudaFree waits for all of it). The communication stream only touches a buffer
    // inside a call that the host waits for, so a buffer is never freed under it.
    void *data = nullptr;
    const std::size_t bytes = std::max<std::size_t>(count, 1) * sizeof(float);
    if (Status s = checked(cudaMallocAsync(&data, bytes, m_compute),
                           "cudaMallocAsync of " + std::to_string(bytes) + " bytes");
        !s)
        return s.error();
    cudaStream_t stream = m_compute;
    std::shared_ptr<void> owner(data, [stream](void *p) { cudaFreeAsync(p, stream); });
    if (Status s = checked(cudaMemsetAsync(data, 0, bytes, m_compute), "cudaMemsetAsync"); !s)
        return s.error();
    sampleMemory();
    return Floats{std::move(owner), static_cast<float *>(data), count};
}

Status CudaBackend::exchange(const std::vector<Comm::Transfer> &transfers, double &spentS)
{
    return m_comms->exchange(transfers, spentS);
}

Status CudaBackend::broadcast(const std::string &group, int root, float *data, std::size_t count,
                              double &spentS)
{
    return m_comms->broadcast(group, root, data, count, spentS);
}

Status CudaBackend::allReduceSum(const std::string &group, float *data, std::size_t count,
                                 double &spentS)
{
    return m_comms->allReduceSum(group, data, count, spentS);
}

Status CudaBackend::allReduceHostSum(const std::string &group, float *values, std::size_t count)
{
    auto device = allocate(count);
    if (!device)
        return device.error();
    const std::size_t bytes = count * sizeof(float);
    if (Status s
        = checked(cudaMemcpyAsync(device->data, values, bytes, cudaMemcpyHostToDevice, m_compute),
                  "copying to the device");
        !s)
        return s;
    double untimedS = 0;
    if (Status s = m_comms->allReduceSum(group, device->data, count, untimedS); !s)
        return s;
    // The all-reduce has finished (NcclComms waits for it), so a plain copy sees its result.
    return checked(cudaMemcpy(values, device->data, bytes, cudaMemcpyDeviceToHost),
                   "copying from the device");
}

Status CudaBackend::gather(const std::vector<FloatPiece> &pieces, float factor, float *packed)
{
    float *at = packed;
    for (const FloatPiece &piece : pieces) {
        if (Status s = checked(cudaMemcpyAsync(at, piece.data, piece.count * sizeof(float),
                                               cudaMemcpyDeviceToDevice, m_compute),
                               "packing gradients");
            !s)
            return s;
        at += piece.count;
    }
    return checked(cuda::scaleFloats(packed, std::size_t(at - packed), factor, m_compute),
                   "scaling gradients");
}

Status CudaBackend::scatter(const float *packed, const std::vector<FloatPiece> &pieces)
{
    for (const FloatPiece &piece : pieces) {
        if (Status s = checked(cudaMemcpyAsync(piece.data, packed, piece.count * sizeof(float),
                                               cudaMemcpyDeviceToDevice, m_compute),
                               "unpacking gradients");
            !s)
            return s;
        packed += piece.count;
    }
    return okStatus();
}

Status CudaBackend::synchronize()
{
    Status s = checked(cudaStreamSynchronize(m_compute), "waiting for the compute stream");
    sampleMemory();
    return s;
}

void CudaBackend::sampleMemory()
{
    std::size_t freeBytes = 0;
    std::size_t totalBytes = 0;
    if (cudaMemGetInfo(&freeBytes, &totalBytes) == cudaSuccess)
        m_peakUsedBytes = std::max(m_peakUsedBytes, totalBytes - freeBytes);
}

double CudaBackend::peakMemoryGiB()
{
    sampleMemory();
    return double(m_peakUsedBytes) / double(1ULL << 30);
}

} // namespace hetplan::runtime
