// Every pair of this host's GPUs: peer copies (what a copy engine moves over NVLink or PCIe)
// and NCCL send/recv (what the training runtime's transfers see), each as a ping-pong whose
// one-way time is half the round trip (docs/probe.md, "GPU hosts"); a sweep that is not
// plausible is measured again (pair_sweeps.h).
#include "runtime/cuda/nccl_status.h"
#include "runtime/probe/gpu_check.h"
#include "runtime/probe/gpu_probe.h"
#include "runtime/probe/pair_sweeps.h"

#include <array>
#include <iostream>
#include <nccl.h>

namespace hetplan::runtime::probe {
namespace {

// One sweep's round trips as a pair.
ProbedPair pairOf(const std::string &host, int a, int b, const char *method,
                  const std::vector<double> &sizesBytes,
                  const std::vector<std::vector<double>> &roundTripsPerSize)
{
    ProbedPair pair;
    pair.a = {host, a};
    pair.b = {host, b};
    pair.method = method;
    for (std::size_t i = 0; i < sizesBytes.size(); ++i)
        pair.sizes.push_back(roundTripPoint(sizesBytes[i], roundTripsPerSize[i]));
    summarizePair(pair);
    return pair;
}

// Round trips at every size, timed on `stream` (which the round trip must end on).
template<typename RoundTrip>
Result<std::vector<std::vector<double>>> sweep(cudaStream_t stream,
                                               const std::vector<double> &sizesBytes,
                                               int repetitions, RoundTrip roundTrip)
{
    std::vector<std::vector<double>> seconds;
    for (double size : sizesBytes) {
        const std::size_t bytes = std::size_t(size);
        auto s = timeOnStream(stream, linkTiming(), repetitions, [&] { return roundTrip(bytes); });
        if (!s)
            return s.error();
        seconds.push_back(std::move(*s));
    }
    return seconds;
}

// `from` reads and writes `to`'s memory directly where the hardware allows it (otherwise CUDA
// stages peer copies through host memory, which is what such a pair gets).
Status enablePeerAccess(int from, int to)
{
    if (Status s = cuda::cudaCall(cudaSetDevice(from), "cudaSetDevice"); !s)
        return s;
    int canAccess = 0;
    if (Status s
        = cuda::cudaCall(cudaDeviceCanAccessPeer(&canAccess, from, to), "cudaDeviceCanAccessPeer");
        !s)
        return s;
    if (!canAccess)
        return okStatus();
    const cudaError_t enabled = cudaDeviceEnablePeerAccess(to, 0);
    if (enabled == cudaErrorPeerAccessAlreadyEnabled) {
        (void)cudaGetLastError(); // clears it: not an error worth keeping
        return okStatus();
    }
    return cuda::cudaCall(enabled, "cudaDeviceEnablePeerAccess");
}

// Per end of a pair: a buffer, a stream, and an event that says its message has left.
struct PeerEnd
{
    DeviceBuffer buffer;
    OwnedStream stream;
    OwnedEvent sent;

    Status open(int device, std::size_t bytes, const std::string &what)
    {
        if (Status s = cuda::cudaCall(cudaSetDevice(device), "cudaSetDevice"); !s)
            return s;
        if (Status s = buffer.reserve(bytes, what); !s)
            return s;
        auto madeStream = makeStream();
        if (!madeStream)
            return madeStream.error();
        stream = std::move(*madeStream);
        auto madeEvent = makeEvent(cudaEventDisableTiming);
        if (!madeEvent)
            return madeEvent.error();
        sent = std::move(*madeEvent);
        return okStatus();
    }
};

// a → b on a's stream, then b → a on b's stream once the first copy has landed, then a's stream
// waits for the answer: each copy starts only after the other one ended.
Result<ProbedPair> peerCopies(const std::string &host, int a, int b,
                              const std::vector<double> &sizesBytes, int repetitions)
{
    const std::string what = "peer copies GPU " + std::to_string(a) + " ⇄ GPU " + std::to_string(b);
    const std::size_t maxBytes = std::size_t(sizesBytes.back());
    const int device[2] = {a, b};
    std::array<PeerEnd, 2> ends;
    for (std::size_t e = 0; e < ends.size(); ++e)
        if (Status s = ends[e].open(device[e], maxBytes, what); !s)
            return Error{s.error().kind, what + ": " + s.error().message};
    for (const auto &[from, to] : {std::pair{a, b}, {b, a}})
        if (Status s = enablePeerAccess(from, to); !s)
            return Error{s.error().kind, what + ": " + s.error().message};
    if (Status s = cuda::cudaCall(cudaSetDevice(a), "cudaSetDevice"); !s)
        return s.error();
    auto seconds = sweep(ends[0].stream.get(), sizesBytes, repetitions, [&](std::size_t bytes) {
        for (int from : {0, 1}) {
            PeerEnd &src = ends[std::size_t(from)];
            PeerEnd &dst = ends[std::size_t(1 - from)];
            if (Status s
                = cuda::cudaCall(cudaMemcpyPeerAsync(dst.buffer.as<void>(), device[1 - from],
                                                     src.buffer.as<void>(), device[from], bytes,
                                                     src.stream.get()),
                                 "cudaMemcpyPeerAsync");
                !s)
                return s;
            if (Status s = cuda::cudaCall(cudaEventRecord(src.sent.get(), src.stream.get()),
                                          "cudaEventRecord");
                !s)
                return s;
            if (Status s = cuda::cudaCall(cudaStreamWaitEvent(dst.stream.get(), src.sent.get(), 0),
                                          "cudaStreamWaitEvent");
                !s)
                return s;
        }
        return okStatus();
    });
    if (!seconds)
        return Error{seconds.error().kind, what + ": " + seconds.error().message};
    return pairOf(host, a, b, "cuda-peer-copy", sizesBytes, *seconds);
}

struct NcclWorld
{
    std::vector<ncclComm_t> comms;
    std::vector<OwnedStream> streams;
    std::vector<DeviceBuffer> buffers;

    ~NcclWorld()
    {
        // Nothing to report to from here; the communicators go once their work has.
        for (const OwnedStream &s : streams)
            if (s)
                (void)cudaStreamSynchronize(s.get());
        for (ncclComm_t c : comms)
            if (c)
                ncclCommDestroy(c);
    }
};

// One message `from` → `to`: the send and the receive in one group, both posted before the
// group ends even when the first fails (an open group would swallow the next call).
Status ncclMessage(NcclWorld &w, int from, int to, std::size_t bytes)
{
    const auto f = std::size_t(from);
    const auto t = std::size_t(to);
    if (Status s = cuda::ncclCall(ncclGroupStart(), "ncclGroupStart"); !s)
        return s;
    const ncclResult_t sent
        = ncclSend(w.buffers[f].as<void>(), bytes, ncclChar, to, w.comms[f], w.streams[f].get());
    const ncclResult_t received
        = ncclRecv(w.buffers[t].as<void>(), bytes, ncclChar, from, w.comms[t], w.streams[t].get());
    const ncclResult_t ended = ncclGroupEnd();
    if (Status s = cuda::ncclCall(sent, "ncclSend"); !s)
        return s;
    if (Status s = cuda::ncclCall(received, "ncclRecv"); !s)
        return s;
    return cuda::ncclCall(ended, "ncclGroupEnd");
}

// a → b, then b → a: b's stream sends only after its receive, a's stream ends with the answer.
Result<ProbedPair> ncclPair(NcclWorld &w, const std::string &host, int a, int b,
                            const std::vector<double> &sizesBytes, int repetitions)
{
    const std::string what
        = "NCCL send/recv GPU " + std::to_string(a) + " ⇄ GPU " + std::to_string(b);
    if (Status s = cuda::cudaCall(cudaSetDevice(a), "cudaSetDevice"); !s)
        return s.error();
    auto seconds = sweep(w.streams[std::size_t(a)].get(), sizesBytes, repetitions,
                         [&](std::size_t bytes) -> Status {
                             if (Status s = ncclMessage(w, a, b, bytes); !s)
                                 return s;
                             return ncclMessage(w, b, a, bytes);
                         });
    if (!seconds)
        return Error{seconds.error().kind, what + ": " + seconds.error().message};
    return pairOf(host, a, b, "nccl-sendrecv", sizesBytes, *seconds);
}

Status openNccl(NcclWorld &w, int count, std::size_t maxBytes)
{
    w.comms.assign(std::size_t(count), nullptr);
    w.streams.resize(std::size_t(count));
    w.buffers = std::vector<DeviceBuffer>(std::size_t(count));
    if (Status s
        = cuda::ncclCall(ncclCommInitAll(w.comms.data(), count, nullptr), "ncclCommInitAll");
        !s)
        return s;
    for (int d = 0; d < count; ++d) {
        std::string what = "NCCL buffers on GPU ";
        what += std::to_string(d);
        if (Status s = cuda::cudaCall(cudaSetDevice(d), "cudaSetDevice"); !s)
            return s;
        auto stream = makeStream();
        if (!stream)
            return stream.error();
        w.streams[std::size_t(d)] = std::move(*stream);
        if (Status s = w.buffers[std::size_t(d)].reserve(maxBytes, what); !s)
            return s;
    }
    return okStatus();
}

} // namespace

Result<std::vector<ProbedPair>>
probeGpuPairs(const std::string &hostName, const std::vector<double> &sizesBytes, int repetitions)
{
    int count = 0;
    if (Status s = cuda::cudaCall(cudaGetDeviceCount(&count), "cudaGetDeviceCount"); !s)
        return s.error();
    std::vector<ProbedPair> pairs;
    if (count < 2 || sizesBytes.empty())
        return pairs;
    for (int a = 0; a < count; ++a)
        for (int b = a + 1; b < count; ++b) {
            auto pair = sweepPair(
                std::cerr, [&] { return peerCopies(hostName, a, b, sizesBytes, repetitions); });
            if (!pair)
                return pair.error();
            pairs.push_back(std::move(*pair));
        }
    NcclWorld world;
    if (Status s = openNccl(world, count, std::size_t(sizesBytes.back())); !s)
        return s.error();
    for (int a = 0; a < count; ++a)
        for (int b = a + 1; b < count; ++b) {
            auto pair = sweepPair(std::cerr, [&] {
                return ncclPair(world, hostName, a, b, sizesBytes, repetitions);
            });
            if (!pair)
                return pair.error();
            pairs.push_back(std::move(*pair));
        }
    return pairs;
}

} // namespace hetplan::runtime::probe
