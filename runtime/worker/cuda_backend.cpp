#include "runtime/worker/cuda_backend.h"

#include "core/model/backend_kind.h"
#include "runtime/cuda/cuda_status.h"
#include "runtime/cuda/device.h"
#include "runtime/cuda/device_buffer.h"
#include "runtime/cuda/float_ops.h"
#include "runtime/worker/executor.h"

#include <algorithm>
#include <cstdint>

namespace hetplan::runtime {
namespace {

using cuda::cudaCall;

Error unsupported(Precision type)
{
    return {ErrorKind::Internal,
            "the CUDA backend sends fp32 or bf16, not element type " + std::to_string(int(type))};
}

// Stream-ordered device memory on `stream`: allocating and freeing never stall the device (a
// plain cudaFree waits for all of it). Freed on the stream that last uses it (retire).
Result<void *> deviceBytes(std::size_t bytes, cudaStream_t stream)
{
    void *data = nullptr;
    if (Status s = cudaCall(cudaMallocAsync(&data, std::max<std::size_t>(bytes, 1), stream),
                            "cudaMallocAsync of " + std::to_string(bytes) + " bytes");
        !s)
        return s.error();
    return data;
}

// A failed free has nobody left to tell: its owner is going.
void retire(void *data, cudaStream_t stream)
{
    (void)cudaCall(cudaFreeAsync(data, stream), "freeing device memory");
}

} // namespace

CudaBackend::CudaBackend(cudaStream_t compute, int worldRank, std::size_t bucketElements)
    : Backend(wirePrecision(BackendKind::Cuda), bucketElements)
    , m_compute(compute)
    , m_worldRank(worldRank)
{}

CudaBackend::~CudaBackend()
{
    m_gradientStaging.reset(); // freed on the gradient stream, which m_comms owns
    m_comms.reset();           // aborts the communicators before their stream's owner goes
    if (m_compute != nullptr)
        cudaStreamDestroy(m_compute);
}

Result<std::unique_ptr<CudaBackend>> CudaBackend::open(const CommOptions &options, int worldRank,
                                                       int worldSize, int device,
                                                       std::size_t bucketElements)
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
    std::unique_ptr<CudaBackend> backend(new CudaBackend(compute, worldRank, bucketElements));
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
        cuda::NcclGroup g{spec.key, spec.members, std::nullopt, cuda::Lane::Communication};
        for (const Group &planned : program.groups)
            if (planned.key == spec.key) {
                g.transport = planned.transport;
                if (planned.kind == GroupKind::Gradient) {
                    g.lane = cuda::Lane::Gradients;
                    m_gradientGroups.insert(spec.key);
                }
            }
        groups.push_back(std::move(g));
    }
    Status connected = m_comms->connect(groups);
    sampleMemory();
    return connected;
}

Result<Floats> CudaBackend::allocate(std::size_t count)
{
    const std::size_t bytes = std::max<std::size_t>(count, 1) * sizeof(float);
    auto data = deviceBytes(bytes, m_compute);
    if (!data)
        return data.error();
    std::shared_ptr<void> owner(*data, [stream = m_compute](void *p) { retire(p, stream); });
    if (Status s = cudaCall(cudaMemsetAsync(*data, 0, bytes, m_compute), "cudaMemsetAsync"); !s)
        return s.error();
    sampleMemory();
    return Floats{std::move(owner), static_cast<float *>(*data), count};
}

// One call's bf16 staging, allocated on the compute stream and freed on `freeOn` when it goes:
// the compute stream where that stream reads what arrived, else the communication stream after
// the sends that read it, so the compute stream never waits for a send.
struct CudaBackend::Staging
{
    std::uint16_t *data = nullptr;
    cudaStream_t freeOn = nullptr;
    Staging() = default;
    Staging(const Staging &) = delete;
    Staging &operator=(const Staging &) = delete;
    ~Staging()
    {
        if (data != nullptr)
            retire(data, freeOn);
    }
};

Status CudaBackend::stage(std::size_t count, Staging &staging)
{
    auto data = deviceBytes(count * sizeof(std::uint16_t), m_compute);
    if (!data)
        return data.error();
    staging.data = static_cast<std::uint16_t *>(*data);
    staging.freeOn = m_compute;
    return okStatus();
}

Result<std::uint16_t *> CudaBackend::gradientStaging(std::size_t count, cudaStream_t stream)
{
    if (count > m_gradientStagingCount) {
        m_gradientStaging.reset(); // freed in stream order, after the work queued on it
        auto grown = deviceBytes(count * sizeof(std::uint16_t), stream);
        if (!grown)
            return grown.error();
        m_gradientStaging.reset(*grown, [stream](void *p) { retire(p, stream); });
        m_gradientStagingCount = count;
    }
    return static_cast<std::uint16_t *>(m_gradientStaging.get());
}

Status CudaBackend::toWire(const float *from, std::size_t count, std::uint16_t *to, float factor,
                           cudaStream_t stream)
{
    return cudaCall(
        cuda::floatToBf16(from, count, to, stream != nullptr ? stream : m_compute, factor),
        "converting fp32 to bf16 for the wire");
}

Status CudaBackend::fromWire(const std::uint16_t *from, std::size_t count, float *to,
                             cudaStream_t stream)
{
    return cudaCall(cuda::bf16ToFloat(from, count, to, stream != nullptr ? stream : m_compute),
                    "converting bf16 from the wire to fp32");
}

bool CudaBackend::gradientGroup(const std::string &group) const
{
    return m_gradientGroups.contains(group);
}

Status CudaBackend::exchangeAs(const std::vector<Comm::Transfer> &transfers, Precision type,
                               double &spentS)
{
    if (transfers.empty())
        return okStatus();
    const std::string &group = transfers.front().group;
    const bool receives = std::any_of(transfers.begin(), transfers.end(),
                                      [](const Comm::Transfer &t) { return !t.send; });
    std::vector<cuda::NcclTransfer> wire;
    if (type == Precision::Fp32) { // the executor's handshake tokens, which it keeps
        for (const Comm::Transfer &t : transfers)
            wire.push_back({t.group, t.peer, t.data, t.count, t.send});
        if (Status s = m_comms->exchange(wire, type, spentS); !s)
            return s;
        return receives ? m_comms->computeFollows(group) : okStatus();
    }
    if (type != Precision::Bf16)
        return unsupported(type);
    std::size_t total = 0;
    for (const Comm::Transfer &t : transfers)
        total += t.count;
    Staging staging;
    if (Status s = stage(total, staging); !s)
        return s;
    std::uint16_t *at = staging.data;
    for (const Comm::Transfer &t : transfers) {
        if (t.send)
            if (Status s = toWire(t.data, t.count, at); !s)
                return s;
        wire.push_back({t.group, t.peer, at, t.count, t.send});
        at += t.count;
    }
    if (Status s = m_comms->exchange(wire, type, spentS); !s)
        return s;
    if (!receives) { // the compute stream goes on; the staging goes after the sends
        auto sendStream = m_comms->streamOf(group);
        if (!sendStream)
            return sendStream.error();
        staging.freeOn = *sendStream;
        return okStatus();
    }
    // What arrived is read on the compute stream, after the transfers.
    if (Status s = m_comms->computeFollows(group); !s)
        return s;
    at = staging.data;
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
    if (type == Precision::Fp32) {
        if (Status s = m_comms->broadcast(group, root, data, count, type, spentS); !s)
            return s;
        return m_comms->computeFollows(group);
    }
    if (type != Precision::Bf16)
        return unsupported(type);
    Staging staging;
    if (Status s = stage(count, staging); !s)
        return s;
    const bool sender = root == m_worldRank;
    if (sender)
        if (Status s = toWire(data, count, staging.data); !s)
            return s;
    if (Status s = m_comms->broadcast(group, root, staging.data, count, type, spentS); !s)
        return s;
    if (Status s = m_comms->computeFollows(group); !s)
        return s;
    return sender ? okStatus() : fromWire(staging.data, count, data);
}

Status CudaBackend::allReduceSumAs(const std::string &group, float *data, std::size_t count,
                                   Precision type, double &spentS)
{
    if (type == Precision::Fp32) {
        if (Status s = m_comms->allReduceSum(group, data, count, type, spentS); !s)
            return s;
        // A gradient group's handshake: nothing on the compute stream reads its token, and a
        // wait there would hold the optimizer for nothing.
        return gradientGroup(group) ? okStatus() : m_comms->computeFollows(group);
    }
    if (type != Precision::Bf16)
        return unsupported(type);
    Staging staging;
    if (Status s = stage(count, staging); !s)
        return s;
    if (Status s = toWire(data, count, staging.data); !s)
        return s;
    if (Status s = m_comms->allReduceSum(group, staging.data, count, type, spentS); !s)
        return s;
    if (Status s = m_comms->computeFollows(group); !s)
        return s;
    return fromWire(staging.data, count, data);
}

Status CudaBackend::awaitGradients(const std::string &group, const std::vector<FloatPiece> &pieces)
{
    std::vector<cudaEvent_t> ready;
    for (const FloatPiece &piece : pieces) {
        if (piece.gradientsReady == nullptr)
            return m_comms->follow(group, {}); // unknown: after all the compute queued so far
        if (std::find(ready.begin(), ready.end(), piece.gradientsReady) == ready.end())
            ready.push_back(piece.gradientsReady);
    }
    return m_comms->follow(group, ready);
}

// Everything on the group's gradient stream, after the backward work that produced the pieces:
// pack, all-reduce, unpack; the compute stream (the optimizer) waits for the unpacked bucket.
Status CudaBackend::reduceBucket(const std::string &group, const std::vector<FloatPiece> &pieces,
                                 float factor, Precision type, double &spentS)
{
    if (type != Precision::Bf16)
        return unsupported(type);
    auto stream = m_comms->streamOf(group);
    if (!stream)
        return stream.error();
    if (Status s = awaitGradients(group, pieces); !s)
        return s;
    std::size_t total = 0;
    for (const FloatPiece &piece : pieces)
        total += piece.count;
    auto buffer = gradientStaging(total, *stream);
    if (!buffer)
        return buffer.error();
    std::uint16_t *at = *buffer;
    for (const FloatPiece &piece : pieces) {
        if (Status s = toWire(piece.data, piece.count, at, factor, *stream); !s)
            return s;
        at += piece.count;
    }
    if (Status s = m_comms->allReduceSum(group, *buffer, total, type, spentS); !s)
        return s;
    at = *buffer;
    for (const FloatPiece &piece : pieces) {
        if (Status s = fromWire(at, piece.count, piece.data, *stream); !s)
            return s;
        at += piece.count;
    }
    return m_comms->computeFollows(group);
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
    // The host reads the sum: it waits here, with the deadline, and a plain copy sees it.
    if (Status s = m_comms->drain(); !s)
        return s;
    return cudaCall(cudaMemcpy(values, device->data, bytes, cudaMemcpyDeviceToHost),
                    "copying from the device");
}

Status CudaBackend::barrier(const std::string &group, double timeoutS)
{
    auto token = allocate(1);
    if (!token)
        return token.error();
    double untimedS = 0;
    if (Status s = m_comms->allReduceSum(group, token->data, 1, Precision::Fp32, untimedS); !s)
        return s;
    return m_comms->drain(std::chrono::milliseconds(static_cast<long long>(timeoutS * 1000)));
}

Status CudaBackend::synchronize()
{
    // The communication first, with its deadline: the compute stream may wait for it.
    if (Status s = m_comms->drain(); !s)
        return s;
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
