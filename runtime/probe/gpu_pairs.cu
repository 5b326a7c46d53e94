// Every pair of this host's GPUs: peer copies (what a copy engine moves over NVLink or PCIe)
// and NCCL send/recv (what the training runtime's transfers see), as nvbandwidth and
// nccl-tests' sendrecv_perf would measure them.
#include "runtime/probe/gpu_check.h"
#include "runtime/probe/gpu_probe.h"

#include <chrono>

namespace hetplan::runtime::probe {
namespace {

// One sweep's samples as a pair: one-way time per message and bytes over that time.
ProbedPair pairOf(const std::string &host, int a, int b, const char *method,
                  const std::vector<double> &sizesBytes,
                  const std::vector<std::vector<double>> &secondsPerSize)
{
    ProbedPair pair;
    pair.a = {host, a};
    pair.b = {host, b};
    pair.method = method;
    for (std::size_t i = 0; i < sizesBytes.size(); ++i)
        pair.sizes.push_back(sizePoint(sizesBytes[i], secondsPerSize[i]));
    summarizePair(pair);
    return pair;
}

// Copies a → b with peer access enabled where the hardware allows it (otherwise CUDA stages
// the copy through host memory, which is what such a pair gets).
Result<ProbedPair> peerCopies(const std::string &host, int a, int b,
                              const std::vector<double> &sizesBytes, int repetitions)
{
    const std::string what = "peer copy GPU " + std::to_string(a) + " → GPU " + std::to_string(b);
    const std::size_t maxBytes = std::size_t(sizesBytes.back());
    DeviceBuffer src, dst;
    if (Status s = cudaCheck(cudaSetDevice(b), what); !s)
        return s.error();
    if (Status s = dst.reserve(maxBytes, what); !s)
        return s.error();
    if (Status s = cudaCheck(cudaSetDevice(a), what); !s)
        return s.error();
    if (Status s = src.reserve(maxBytes, what); !s)
        return s.error();
    int canAccess = 0;
    if (Status s = cudaCheck(cudaDeviceCanAccessPeer(&canAccess, a, b), what); !s)
        return s.error();
    if (canAccess) {
        const cudaError_t enabled = cudaDeviceEnablePeerAccess(b, 0);
        cudaGetLastError(); // "already enabled" is not an error worth keeping
        if (enabled != cudaErrorPeerAccessAlreadyEnabled)
            if (Status s = cudaCheck(enabled, what + ": cudaDeviceEnablePeerAccess"); !s)
                return s.error();
    }
    cudaStream_t stream = nullptr;
    if (Status s = cudaCheck(cudaStreamCreate(&stream), what); !s)
        return s.error();
    std::vector<std::vector<double>> seconds;
    for (double size : sizesBytes) {
        const std::size_t bytes = std::size_t(size);
        auto s = timeOnStream(stream, repetitions, [&] {
            return cudaCheck(
                cudaMemcpyPeerAsync(dst.as<void>(), b, src.as<void>(), a, bytes, stream), what);
        });
        if (!s) {
            cudaStreamDestroy(stream);
            return s.error();
        }
        seconds.push_back(std::move(*s));
    }
    cudaStreamDestroy(stream);
    return pairOf(host, a, b, "cuda-peer-copy", sizesBytes, seconds);
}

struct NcclWorld
{
    std::vector<ncclComm_t> comms;
    std::vector<cudaStream_t> streams;
    std::vector<DeviceBuffer> buffers;

    ~NcclWorld()
    {
        for (cudaStream_t s : streams)
            if (s)
                cudaStreamDestroy(s);
        for (ncclComm_t c : comms)
            if (c)
                ncclCommDestroy(c);
    }
};

// `calls` send/recv rounds a → b, then both streams drained; host-timed like nccl-tests, since
// the two ends run on different devices' streams.
Result<double> ncclRounds(NcclWorld &w, int a, int b, std::size_t bytes, int calls)
{
    const std::string what
        = "NCCL send/recv GPU " + std::to_string(a) + " → GPU " + std::to_string(b);
    const auto start = std::chrono::steady_clock::now();
    for (int c = 0; c < calls; ++c) {
        if (Status s = ncclCheck(ncclGroupStart(), what); !s)
            return s.error();
        // Both calls are posted before the group ends, even when the first fails: an open
        // group would swallow the next one.
        const ncclResult_t sent = ncclSend(w.buffers[std::size_t(a)].as<void>(), bytes, ncclChar, b,
                                           w.comms[std::size_t(a)], w.streams[std::size_t(a)]);
        const ncclResult_t received
            = ncclRecv(w.buffers[std::size_t(b)].as<void>(), bytes, ncclChar, a,
                       w.comms[std::size_t(b)], w.streams[std::size_t(b)]);
        const ncclResult_t ended = ncclGroupEnd();
        for (ncclResult_t code : {sent, received, ended})
            if (Status s = ncclCheck(code, what); !s)
                return s.error();
    }
    for (int d : {a, b})
        if (Status s = cudaCheck(cudaStreamSynchronize(w.streams[std::size_t(d)]), what); !s)
            return s.error();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / calls;
}

Result<ProbedPair> ncclPair(NcclWorld &w, const std::string &host, int a, int b,
                            const std::vector<double> &sizesBytes, int repetitions)
{
    std::vector<std::vector<double>> seconds;
    for (double size : sizesBytes) {
        const std::size_t bytes = std::size_t(size);
        // The first round sets up NCCL's connection between the two; the second sizes the rest.
        if (auto first = ncclRounds(w, a, b, bytes, 1); !first)
            return first.error();
        const auto warm = ncclRounds(w, a, b, bytes, 1);
        if (!warm)
            return warm.error();
        const int calls = callsPerRepetition(*warm);
        std::vector<double> samples;
        for (int r = 0; r < repetitions; ++r) {
            auto t = ncclRounds(w, a, b, bytes, calls);
            if (!t)
                return t.error();
            samples.push_back(*t);
        }
        seconds.push_back(std::move(samples));
    }
    return pairOf(host, a, b, "nccl-sendrecv", sizesBytes, seconds);
}

Status openNccl(NcclWorld &w, int count, std::size_t maxBytes)
{
    w.comms.assign(std::size_t(count), nullptr);
    w.streams.assign(std::size_t(count), nullptr);
    w.buffers = std::vector<DeviceBuffer>(std::size_t(count));
    if (Status s = ncclCheck(ncclCommInitAll(w.comms.data(), count, nullptr), "ncclCommInitAll");
        !s)
        return s;
    for (int d = 0; d < count; ++d) {
        const std::string what = "NCCL buffers on GPU " + std::to_string(d);
        if (Status s = cudaCheck(cudaSetDevice(d), what); !s)
            return s;
        if (Status s = cudaCheck(cudaStreamCreate(&w.streams[std::size_t(d)]), what); !s)
            return s;
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
    if (Status s = cudaCheck(cudaGetDeviceCount(&count), "cudaGetDeviceCount"); !s)
        return s.error();
    std::vector<ProbedPair> pairs;
    if (count < 2)
        return pairs;
    for (int a = 0; a < count; ++a)
        for (int b = a + 1; b < count; ++b) {
            auto pair = peerCopies(hostName, a, b, sizesBytes, repetitions);
            if (!pair)
                return pair.error();
            pairs.push_back(std::move(*pair));
        }
    NcclWorld world;
    if (Status s = openNccl(world, count, std::size_t(sizesBytes.back())); !s)
        return s.error();
    for (int a = 0; a < count; ++a)
        for (int b = a + 1; b < count; ++b) {
            auto pair = ncclPair(world, hostName, a, b, sizesBytes, repetitions);
            if (!pair)
                return pair.error();
            pairs.push_back(std::move(*pair));
        }
    return pairs;
}

} // namespace hetplan::runtime::probe
