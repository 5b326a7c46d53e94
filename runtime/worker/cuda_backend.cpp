#include "runtime/worker/cuda_backend.h"

#include "core/model/backend_kind.h"
#include "runtime/cuda/cuda_status.h"
#include "runtime/cuda/device.h"
#include "runtime/cuda/device_buffer.h"
#include "runtime/cuda/float_ops.h"
#include "runtime/worker/executor.h"

#include <algorithm>

namespace hetplan::runtime {
namespace {

using cuda::cudaCall;

Error unsupported(Precision type)
{
    return {ErrorKind::Internal,
            "the CUDA backend sends fp32 or bf16, not element type " + std::to_string(int(type))};
}

// Stream-ordered device memory on `stream`: allocating and freeing never stall the device (a
// plain cudaFree waits for all of it). The communication stream only touches a buffer inside
// a call that the host waits for, so a buffer is never freed under it.
Result<std::shared_ptr<void>> deviceBytes(std::size_t bytes, cudaStream_t stream)
{
    void *data = nullptr;
    if (Status s = cudaCall(cudaMallocAsync(&data, std::max<std::size_t>(bytes, 1), stream),
                            "cudaMallocAsync of " + std::to_string(bytes) + " bytes");
        !s)
        return s.error();
    return std::shared_ptr<void>(data, [stream](void *p) { cudaFreeAsync(p, stream); });
}

} // namespace

CudaBackend::CudaBackend(cudaStream_t compute, int worldRank)
    : Backend(wirePrecision(BackendKind::Cuda))
    , m_compute(compute)
    , m_worldRank(worldRank)
{}

CudaBackend::~CudaBackend()
{
    m_comms.reset(); // aborts the communicators before their stream's owner goes
    m_staging.reset();
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
    if (Status s = cudaCall(cudaSetDevice(device), "cudaSetDevice(" + std::to_string(device) + ")");
        !s)
        return s.error();
    // The step's allocations stay mapped between synchronisations (docs/runtime.md
    // "Device memory").
    if (Status s = cuda::keepPoolReserved(); !s)
        return s.error();
    cudaStream_t compute = nullptr;
    if (Status s = cudaCall(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking),
                            "creating the compute stream");
        !s)
        return s.error();
    std::unique_ptr<CudaBackend> backend(new CudaBackend(compute, worldRank));
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
    const std::size_t bytes = std::max<std::size_t>(count, 1) * sizeof(float);
    auto owner = deviceBytes(bytes, m_compute);
    if (!owner)
        return owner.error();
    void *data = owner->get();
    if (Status s = cudaCall(cudaMemsetAsync(data, 0, bytes, m_compute), "cudaMemsetAsync"); !s)
        return s.error();
    sampleMemory();
    return Floats{std::move(owner).value(), static_cast<float *>(data), count};
}

Result<std::uint16_t *> CudaBackend::staging(std::size_t count)
{
    if (count > m_stagingCount) {
        m_staging.reset(); // freed in stream order, after the work queued on it
        auto grown = deviceBytes(count * sizeof(std::uint16_t), m_compute);
        if (!grown)
            return grown.error();
        m_staging = std::move(grown).value();
        m_stagingCount = count;
    }
    return static_cast<std::uint16_t *>(m_staging.get());
}

Status CudaBackend::toWire(const float *from, std::size_t count, std::uint16_t *to, float factor)
{
    return cudaCall(cuda::floatToBf16(from, count, to, m_compute, factor),
                    "converting fp32 to bf16 for the wire");
}

Status CudaBackend::fromWire(const std::uint16_t *from, std::size_t count, float *to)
{
    return cudaCall(cuda::bf16ToFloat(from, count, to, m_compute),
                    "converting bf16 from the wire to fp32");
}

Status CudaBackend::exchangeAs(const std::vector<Comm::Transfer> &transfers, Precision type,
                               double &spentS)
{
    std::vector<cuda::NcclTransfer> wire;
    if (type == Precision::Fp32) {
        for (const Comm::Transfer &t : transfers)
            wire.push_back({t.group, t.peer, t.data, t.count, t.send});
        return m_comms->exchange(wire, type, spentS);
    }
    if (type != Precision::Bf16)
        return unsupported(type);
    std::size_t total = 0;
    for (const Comm::Transfer &t : transfers)
        total += t.count;
    auto buffer = staging(total);
    if (!buffer)
        return buffer.error();
    std::uint16_t *at = *buffer;
    for (const Comm::Transfer &t : transfers) {
        if (t.send)
            if (Status s = toWire(t.data, t.count, at); !s)
                return s;
        wire.push_back({t.group, t.peer, at, t.count, t.send});
        at += t.count;
    }
    if (Status s = m_comms->exchange(wire, type, spentS); !s)
        return s;
    // NcclComms waited for the transfers, so the compute stream may read what arrived.
    at = *buffer;
    for (const Comm::Transfer &t : transfers) {
        if (!t.send)
            if (Status s = fromWire(at, t.count, t.data); !s)
                return s;
        at += t.count;
    }
    return okStatus();
}

Status CudaBackend::broadcastAs(const std::string &group, int root, float *data, std::size_t count,
                                Precision type, double &spentS)
{
    if (type == Precision::Fp32)
        return m_comms->broadcast(group, root, data, count, type, spentS);
    if (type != Precision::Bf16)
        return unsupported(type);
    auto buffer = staging(count);
    if (!buffer)
        return buffer.error();
    const bool sender = root == m_worldRank;
    if (sender)
        if (Status s = toWire(data, count, *buffer); !s)
            return s;
    if (Status s = m_comms->broadcast(group, root, *buffer, count, type, spentS); !s)
        return s;
    return sender ? okStatus() : fromWire(*buffer, count, data);
}

Status CudaBackend::allReduceSumAs(const std::string &group, float *data, std::size_t count,
                                   Precision type, double &spentS)
{
    if (type == Precision::Fp32)
        return m_comms->allReduceSum(group, data, count, type, spentS);
    if (type != Precision::Bf16)
        return unsupported(type);
    auto buffer = staging(count);
    if (!buffer)
        return buffer.error();
    if (Status s = toWire(data, count, *buffer); !s)
        return s;
    if (Status s = m_comms->allReduceSum(group, *buffer, count, type, spentS); !s)
        return s;
    return fromWire(*buffer, count, data);
}

Status CudaBackend::reduceBucket(const std::string &group, const std::vector<FloatPiece> &pieces,
                                 float factor, Precision type, double &spentS)
{
    if (type != Precision::Bf16)
        return unsupported(type);
    std::size_t total = 0;
    for (const FloatPiece &piece : pieces)
        total += piece.count;
    auto buffer = staging(total);
    if (!buffer)
        return buffer.error();
    std::uint16_t *at = *buffer;
    for (const FloatPiece &piece : pieces) {
        if (Status s = toWire(piece.data, piece.count, at, factor); !s)
            return s;
        at += piece.count;
    }
    if (Status s = m_comms->allReduceSum(group, *buffer, total, type, spentS); !s)
        return s;
    at = *buffer;
    for (const FloatPiece &piece : pieces) {
        if (Status s = fromWire(at, piece.count, piece.data); !s)
            return s;
        at += piece.count;
    }
    return okStatus();
}

Status CudaBackend::allReduceHostSum(const std::string &group, float *values, std::size_t count)
{
    auto device = allocate(count);
    if (!device)
        return device.error();
    const std::size_t bytes = count * sizeof(float);
    if (Status s
        = cudaCall(cudaMemcpyAsync(device->data, values, bytes, cudaMemcpyHostToDevice, m_compute),
                   "copying to the device");
        !s)
        return s;
    double untimedS = 0;
    if (Status s = m_comms->allReduceSum(group, device->data, count, Precision::Fp32, untimedS); !s)
        return s;
    // The all-reduce has finished (NcclComms waits for it), so a plain copy sees its result.
    return cudaCall(cudaMemcpy(values, device->data, bytes, cudaMemcpyDeviceToHost),
                    "copying from the device");
}

Status CudaBackend::synchronize()
{
    Status s = cudaCall(cudaStreamSynchronize(m_compute), "waiting for the compute stream");
    sampleMemory();
    return s;
}

void CudaBackend::sampleMemory()
{
    std::size_t freeBytes = 0;
    std::size_t totalBytes = 0;
    if (cudaCall(cudaMemGetInfo(&freeBytes, &totalBytes), "sampling the device's used memory"))
        m_peakUsedBytes = std::max(m_peakUsedBytes, totalBytes - freeBytes);
}

double CudaBackend::peakMemoryGiB()
{
    sampleMemory();
    return double(m_peakUsedBytes) / double(1ULL << 30);
}

} // namespace hetplan::runtime
