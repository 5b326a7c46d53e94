// NCCL on the host, and the worker's fp32 ⇄ bf16 conversions (runtime/cuda/float_ops.h), logged
// as cuda_emulation_log.h says: so the GPU backend (runtime/worker/cuda_backend.h) runs where no
// GPU is. Linked in place of libnccl and the .cu files.
//
// A communicator of one member: a collective leaves its buffer as it is; a send and a receive of
// one NCCL group between the rank and itself copy in the order they were posted. Communicators
// of several members, one per rank of one process (a thread each), follow NCCL's documented
// semantics for non-blocking communicators: a call returns at once and its work completes on
// its stream once every member has made its call (a collective; its members' calls matched in
// the order each made them) or the peer its matching one (a send and a receive, in posting
// order per pair), as the emulated CUDA runtime learns through emulation::enqueue. A member
// that aborts its communicator drops its unfinished calls, and the others' asynchronous error
// is then ncclRemoteError ("a remote process exiting prematurely"); a member stalled by
// stallMember makes no progress at all, as a stopped process.

#include "cuda_emulation_log.h"
#include "runtime/cuda/float_ops.h"
#include "runtime/cuda/model/bf16.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <nccl.h>
#include <string>
#include <vector>

namespace {

namespace emulation = hetplan::runtime::cuda::emulation;
using emulation::Work;

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

// Sends and receives of a one-member communicator in the thread's open NCCL group, matched in
// order when it ends.
std::deque<Posted> &sends()
{
    thread_local std::deque<Posted> posted;
    return posted;
}
std::deque<Posted> &receives()
{
    thread_local std::deque<Posted> posted;
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

// One member's part of a call of several members: what it gave (copied at the call, as the
// device would read it in stream order), where the result goes, and whether it is done.
struct Part
{
    std::vector<std::byte> given;
    void *out = nullptr;
    std::size_t bytes = 0;
    Work done;
    int rank = 0;
};

// What the members of one communicator share.
struct Clique
{
    int size = 0;
    std::mutex lock;
    std::map<std::uint64_t, std::vector<Part>> collectives;   // by the members' call count
    std::map<std::pair<int, int>, std::deque<Part>> sends;    // by (from, to)
    std::map<std::pair<int, int>, std::deque<Part>> receives; // by (from, to)
    bool aborted = false;
};

struct Communicator
{
    std::shared_ptr<Clique> clique;
    int rank = 0;
    std::string name; // the config's commName: the group key (runtime/cuda/nccl_setup.h)
    std::uint64_t collectives = 0;
    int calls = 0; // collectives, sends and receives so far
    std::vector<Work> outstanding;
};

Communicator &of(ncclComm_t comm)
{
    return *reinterpret_cast<Communicator *>(comm);
}

Work unfinishedWork()
{
    return std::make_shared<std::atomic<bool>>(false);
}

// The stalled member (stallMember): its calls wait here until released.
struct Stall
{
    std::mutex lock;
    std::condition_variable released;
    std::string name;
    int rank = -1;
    int afterCalls = 0;
};

Stall &stall()
{
    static Stall state;
    return state;
}

void waitIfStalled(Communicator &c)
{
    ++c.calls;
    Stall &s = stall();
    std::unique_lock held(s.lock);
    s.released.wait(
        held, [&] { return s.name != c.name || s.rank != c.rank || c.calls <= s.afterCalls; });
}

// Records the calling member's unfinished part on its stream.
void pending(Communicator &c, const Work &done, cudaStream_t stream)
{
    if (done->load())
        return;
    c.outstanding.push_back(done);
    emulation::enqueue(stream, done);
}

// A collective whose members have all called: every member's result, from what each gave.
void complete(std::vector<Part> &parts, ncclDataType_t type, bool sum, int root)
{
    const std::size_t bytes = parts.front().bytes;
    std::vector<std::byte> result(bytes);
    if (!sum) {
        for (const Part &p : parts)
            if (p.rank == root)
                result = p.given;
    } else if (type == ncclFloat32) {
        std::vector<float> total(bytes / 4, 0.0f);
        for (const Part &p : parts)
            for (std::size_t i = 0; i < total.size(); ++i) {
                float x = 0;
                std::memcpy(&x, p.given.data() + 4 * i, 4);
                total[i] += x;
            }
        std::memcpy(result.data(), total.data(), bytes);
    } else {
        std::vector<float> total(bytes / 2, 0.0f);
        for (const Part &p : parts)
            for (std::size_t i = 0; i < total.size(); ++i) {
                std::uint16_t bits = 0;
                std::memcpy(&bits, p.given.data() + 2 * i, 2);
                total[i] += hetplan::runtime::cuda::fromBf16(hetplan::runtime::cuda::Bf16{bits});
            }
        for (std::size_t i = 0; i < total.size(); ++i) {
            const std::uint16_t bits = hetplan::runtime::cuda::toBf16(total[i]).bits;
            std::memcpy(result.data() + 2 * i, &bits, 2);
        }
    }
    for (Part &p : parts) {
        std::memcpy(p.out, result.data(), std::min(bytes, p.bytes));
        p.done->store(true);
    }
}

ncclResult_t collective(const void *from, void *to, std::size_t count, ncclDataType_t type,
                        bool sum, int root, ncclComm_t comm, cudaStream_t stream)
{
    Communicator &c = of(comm);
    const std::size_t bytes = count * bytesOf(type);
    if (c.clique->size == 1) {
        std::memmove(to, from, bytes);
        return ncclSuccess;
    }
    waitIfStalled(c);
    const Work done = unfinishedWork();
    {
        Clique &q = *c.clique;
        const std::lock_guard held(q.lock);
        const std::uint64_t call = c.collectives++;
        std::vector<Part> &parts = q.collectives[call];
        const auto *given = static_cast<const std::byte *>(from);
        parts.push_back({{given, given + bytes}, to, bytes, done, c.rank});
        if (int(parts.size()) == q.size) {
            complete(parts, type, sum, root);
            q.collectives.erase(call);
        }
    }
    pending(c, done, stream);
    return ncclSuccess;
}

// A send (`sending`) or a receive between the member and `peer`, matched with the peer's
// opposite call in posting order.
ncclResult_t transfer(bool sending, void *data, std::size_t count, ncclDataType_t type, int peer,
                      ncclComm_t comm, cudaStream_t stream)
{
    Communicator &c = of(comm);
    const std::size_t bytes = count * bytesOf(type);
    if (c.clique->size == 1) {
        (sending ? sends() : receives()).push_back({data, data, bytes});
        return ncclSuccess;
    }
    waitIfStalled(c);
    const Work done = unfinishedWork();
    {
        Clique &q = *c.clique;
        const std::lock_guard held(q.lock);
        const std::pair<int, int> pair
            = sending ? std::pair{c.rank, peer} : std::pair{peer, c.rank};
        std::deque<Part> &opposite = sending ? q.receives[pair] : q.sends[pair];
        auto *bytesAt = static_cast<std::byte *>(data);
        if (!opposite.empty()) {
            Part &other = opposite.front();
            if (sending)
                std::memcpy(other.out, bytesAt, std::min(bytes, other.bytes));
            else
                std::memcpy(data, other.given.data(), std::min(bytes, other.given.size()));
            other.done->store(true);
            done->store(true);
            opposite.pop_front();
        } else if (sending) {
            q.sends[pair].push_back({{bytesAt, bytesAt + bytes}, nullptr, bytes, done, c.rank});
        } else {
            q.receives[pair].push_back({{}, data, bytes, done, c.rank});
        }
    }
    pending(c, done, stream);
    return ncclSuccess;
}

} // namespace

void hetplan::runtime::cuda::emulation::stallMember(const std::string &commName, int rank,
                                                    int afterCalls)
{
    Stall &s = stall();
    const std::lock_guard held(s.lock);
    s.name = commName;
    s.rank = rank;
    s.afterCalls = afterCalls;
}

void hetplan::runtime::cuda::emulation::releaseStalled()
{
    Stall &s = stall();
    {
        const std::lock_guard held(s.lock);
        s.name.clear();
        s.rank = -1;
    }
    s.released.notify_all();
}

extern "C" {

ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
    static std::atomic<std::uint64_t> next = 1;
    std::memset(id, 7, sizeof(*id));
    const std::uint64_t made = next++;
    std::memcpy(id->internal, &made, sizeof made);
    return ncclSuccess;
}
ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank,
                                    ncclConfig_t *config)
{
    static std::mutex lock;
    static std::map<std::string, std::shared_ptr<Clique>> cliques;
    auto *c = new Communicator;
    {
        const std::lock_guard held(lock);
        std::shared_ptr<Clique> &q = cliques[std::string(id.internal, sizeof id.internal)];
        if (!q || nranks == 1) {
            q = std::make_shared<Clique>();
            q->size = nranks;
        }
        c->clique = q;
    }
    c->rank = rank;
    if (config != nullptr && config->commName != nullptr)
        c->name = config->commName;
    *comm = reinterpret_cast<ncclComm_t>(c);
    return ncclSuccess;
}
// Drops the member's unfinished calls; its peers see ncclRemoteError. The communicator itself
// is kept (a test process is short-lived).
ncclResult_t ncclCommAbort(ncclComm_t comm)
{
    Communicator &c = of(comm);
    Clique &q = *c.clique;
    const std::lock_guard held(q.lock);
    if (q.size > 1)
        q.aborted = true;
    const auto mine = [&](const Part &p) { return p.rank == c.rank; };
    for (auto &[call, parts] : q.collectives)
        std::erase_if(parts, mine);
    for (auto *queues : {&q.sends, &q.receives})
        for (auto &[pair, parts] : *queues)
            std::erase_if(parts, mine);
    for (const Work &w : c.outstanding)
        w->store(true);
    c.outstanding.clear();
    return ncclSuccess;
}
ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *state)
{
    Clique &q = *of(comm).clique;
    const std::lock_guard held(q.lock);
    *state = q.aborted ? ncclRemoteError : ncclSuccess;
    return ncclSuccess;
}
const char *ncclGetErrorString(ncclResult_t result)
{
    return result == ncclRemoteError ? "remote process exited or there was a network error "
                                       "(emulated NCCL)"
                                     : "error in the emulated NCCL";
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
                           ncclRedOp_t, ncclComm_t comm, cudaStream_t stream)
{
    called("allReduce", count, stream);
    return collective(from, to, count, type, true, -1, comm, stream);
}
ncclResult_t ncclBroadcast(const void *from, void *to, size_t count, ncclDataType_t type, int root,
                           ncclComm_t comm, cudaStream_t stream)
{
    called("broadcast", count, stream);
    return collective(from, to, count, type, false, root, comm, stream);
}
ncclResult_t ncclSend(const void *data, size_t count, ncclDataType_t type, int peer,
                      ncclComm_t comm, cudaStream_t stream)
{
    called("send", count, stream);
    // Only read: NCCL's own signature takes a const pointer.
    return transfer(true, const_cast<void *>(data), count, type, peer, comm, stream);
}
ncclResult_t ncclRecv(void *data, size_t count, ncclDataType_t type, int peer, ncclComm_t comm,
                      cudaStream_t stream)
{
    called("recv", count, stream);
    return transfer(false, data, count, type, peer, comm, stream);
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
