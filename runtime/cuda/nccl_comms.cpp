#include "runtime/cuda/nccl_comms.h"

#include "runtime/comm/rendezvous.h"
#include "runtime/cuda/device.h"
#include "runtime/cuda/nccl_setup.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <gloo/rendezvous/store.h>
#include <map>
#include <nccl.h>
#include <thread>

namespace hetplan::runtime::cuda {
namespace {

using Clock = std::chrono::steady_clock;

struct Communicator
{
    ncclComm_t comm = nullptr;
    std::vector<int> members;

    int indexOf(int worldRank) const
    {
        const auto it = std::find(members.begin(), members.end(), worldRank);
        return it == members.end() ? -1 : int(it - members.begin());
    }
};

// The NCCL element type of a buffer of `type`.
ncclDataType_t ncclTypeOf(Precision type)
{
    switch (type) {
    case Precision::Bf16:
        return ncclBfloat16;
    case Precision::Fp16:
        return ncclFloat16;
    case Precision::Fp32:
        return ncclFloat32;
    }
    return ncclFloat32;
}

std::string describe(std::string_view op, const std::string &group, int peer = -1)
{
    std::string text = std::string(op) + " in NCCL group " + group;
    if (peer >= 0)
        text += " with rank " + std::to_string(peer);
    return text;
}

} // namespace

struct NcclComms::Impl
{
    int worldRank = 0;
    int worldSize = 0;
    std::chrono::milliseconds timeout{60000};
    std::unique_ptr<gloo::rendezvous::Store> store;
    cudaStream_t compute = nullptr;
    cudaStream_t stream = nullptr;
    cudaEvent_t computeDone = nullptr;
    cudaEvent_t start = nullptr;
    cudaEvent_t end = nullptr;
    float *warmUp = nullptr; // one device float for the warm-up all-reduces
    std::map<std::string, Communicator> groups;
    bool aborted = false;

    ~Impl()
    {
        // Abort rather than finalize: finalizing waits for peers that may be gone.
        abortAll();
        if (warmUp != nullptr)
            cudaFree(warmUp);
        for (cudaEvent_t e : {computeDone, start, end})
            if (e != nullptr)
                cudaEventDestroy(e);
        if (stream != nullptr)
            cudaStreamDestroy(stream);
    }

    void abortAll()
    {
        for (auto &[key, g] : groups)
            if (g.comm != nullptr) {
                ncclCommAbort(g.comm);
                g.comm = nullptr;
            }
        aborted = true;
    }

    Error fail(Error error)
    {
        abortAll();
        error.message
            += "; every NCCL communicator of rank " + std::to_string(worldRank) + " was aborted";
        return error;
    }

    Result<Communicator *> find(std::string_view op, const std::string &key, int peer)
    {
        if (aborted)
            return Error{ErrorKind::Internal,
                         describe(op, key, peer)
                             + ": the communicators were aborted after an earlier failure"};
        auto it = groups.find(key);
        if (it == groups.end())
            return Error{ErrorKind::Internal,
                         describe(op, key, peer) + ": this rank is not a member of the group"};
        if (peer >= 0 && it->second.indexOf(peer) < 0)
            return Error{ErrorKind::Internal,
                         describe(op, key, peer) + ": the peer is not a member of the group"};
        return &it->second;
    }

    // Polls the communicators' asynchronous state until none is in progress, up to `deadline`.
    Status settle(const std::vector<ncclComm_t> &comms, const std::string &what,
                  Clock::time_point deadline)
    {
        for (;;) {
            bool busy = false;
            for (ncclComm_t c : comms) {
                ncclResult_t state = ncclSuccess;
                if (ncclResult_t r = ncclCommGetAsyncError(c, &state); r != ncclSuccess)
                    return fail(ncclFailure(r, what));
                if (state == ncclInProgress)
                    busy = true;
                else if (state != ncclSuccess)
                    return fail(ncclFailure(state, what));
            }
            if (!busy)
                return okStatus();
            if (Clock::now() > deadline)
                return fail(timedOut(what));
            std::this_thread::yield();
        }
    }

    Error timedOut(const std::string &what) const
    {
        return {ErrorKind::Internal,
                what + " timed out after " + std::to_string(timeout.count()) + " ms"};
    }

    // Runs `enqueue` (NCCL calls on `stream`) after the compute stream's queued work and waits
    // for it, polling NCCL's asynchronous errors; adds the time on the stream to `spentS`.
    Status run(const std::string &what, const std::vector<ncclComm_t> &comms,
               const std::function<ncclResult_t()> &enqueue, double &spentS)
    {
        const auto deadline = Clock::now() + timeout;
        if (cudaError_t e = cudaEventRecord(computeDone, compute); e != cudaSuccess)
            return fail(cudaError(e, what));
        cudaStreamWaitEvent(stream, computeDone, 0);
        cudaEventRecord(start, stream);
        if (ncclResult_t r = enqueue(); r != ncclSuccess && r != ncclInProgress)
            return fail(ncclFailure(r, what));
        if (Status s = settle(comms, what, deadline); !s)
            return s;
        cudaEventRecord(end, stream);
        for (;;) {
            const cudaError_t state = cudaEventQuery(end);
            if (state == cudaSuccess)
                break;
            if (state != cudaErrorNotReady)
                return fail(cudaError(state, what));
            if (Status s = settle(comms, what, deadline); !s)
                return s;
            if (Clock::now() > deadline)
                return fail(timedOut(what));
            std::this_thread::yield();
        }
        float ms = 0;
        cudaEventElapsedTime(&ms, start, end);
        spentS += double(ms) / 1000.0;
        return okStatus();
    }

    Status create(const NcclGroup &spec, int groupRank)
    {
        const std::string what = describe("creating the communicator", spec.key);
        auto id = shareUniqueId(*store, spec.key, groupRank == 0, timeout);
        if (!id)
            return fail(id.error());
        ncclConfig_t config = ncclConfigFor(spec.key, spec.transport);
        Communicator &g = groups[spec.key];
        g.members = spec.members;
        const ncclResult_t made
            = ncclCommInitRankConfig(&g.comm, int(spec.members.size()), *id, groupRank, &config);
        if (made != ncclSuccess && made != ncclInProgress)
            return fail(ncclFailure(made, what));
        if (Status s = settle({g.comm}, what, Clock::now() + timeout); !s)
            return s;
        double warmUpS = 0;
        return run(
            describe("the warm-up all-reduce", spec.key), {g.comm},
            [&] { return ncclAllReduce(warmUp, warmUp, 1, ncclFloat, ncclSum, g.comm, stream); },
            warmUpS);
    }
};

NcclComms::NcclComms(std::unique_ptr<Impl> impl)
    : m_impl(std::move(impl))
{}

NcclComms::~NcclComms() = default;

Result<std::unique_ptr<NcclComms>> NcclComms::open(const CommOptions &options, int worldRank,
                                                   int worldSize, cudaStream_t compute)
{
    auto store = openRankStore(options.rendezvous, worldRank, worldSize, options.timeoutS);
    if (!store)
        return store.error();
    auto impl = std::make_unique<Impl>();
    impl->worldRank = worldRank;
    impl->worldSize = worldSize;
    impl->timeout = std::chrono::milliseconds(static_cast<long long>(options.timeoutS * 1000));
    impl->store = std::move(store).value();
    impl->compute = compute;
    if (cudaError_t e = cudaStreamCreateWithFlags(&impl->stream, cudaStreamNonBlocking);
        e != cudaSuccess)
        return cudaError(e, "creating the communication stream");
    for (cudaEvent_t *e : {&impl->computeDone, &impl->start, &impl->end})
        if (cudaError_t made = cudaEventCreate(e); made != cudaSuccess)
            return cudaError(made, "creating the communication timing events");
    if (cudaError_t e = cudaMalloc(reinterpret_cast<void **>(&impl->warmUp), sizeof(float));
        e != cudaSuccess)
        return cudaError(e, "allocating the warm-up float");
    cudaMemsetAsync(impl->warmUp, 0, sizeof(float), impl->stream);
    return std::unique_ptr<NcclComms>(new NcclComms(std::move(impl)));
}

Status NcclComms::connect(const std::vector<NcclGroup> &groups)
{
    for (const NcclGroup &spec : groups) {
        const auto self = std::find(spec.members.begin(), spec.members.end(), m_impl->worldRank);
        if (self == spec.members.end())
            continue;
        if (m_impl->groups.contains(spec.key))
            return Error{ErrorKind::Internal, describe("creating the communicator", spec.key)
                                                  + ": the key is used twice"};
        if (Status s = m_impl->create(spec, int(self - spec.members.begin())); !s)
            return s;
    }
    return okStatus();
}

Status NcclComms::exchange(const std::vector<NcclTransfer> &transfers, Precision type,
                           double &spentS)
{
    struct Posted
    {
        Communicator *group;
        const NcclTransfer *transfer;
    };
    std::vector<Posted> posted;
    std::vector<ncclComm_t> comms;
    for (const NcclTransfer &t : transfers) {
        auto g = m_impl->find(t.send ? "send" : "recv", t.group, t.peer);
        if (!g)
            return g.error();
        posted.push_back({*g, &t});
        if (std::find(comms.begin(), comms.end(), (*g)->comm) == comms.end())
            comms.push_back((*g)->comm);
    }
    if (transfers.empty())
        return okStatus();
    const NcclTransfer &first = transfers.front();
    const std::string what = describe(transfers.size() == 1 ? (first.send ? "send" : "recv")
                                                            : "an exchange of transfers",
                                      first.group, first.peer);
    return m_impl->run(
        what, comms,
        [&] {
            ncclGroupStart();
            for (const Posted &p : posted) {
                const NcclTransfer &t = *p.transfer;
                const int peer = p.group->indexOf(t.peer);
                const ncclResult_t r = t.send ? ncclSend(t.data, t.count, ncclTypeOf(type), peer,
                                                         p.group->comm, m_impl->stream)
                                              : ncclRecv(t.data, t.count, ncclTypeOf(type), peer,
                                                         p.group->comm, m_impl->stream);
                if (r != ncclSuccess && r != ncclInProgress) {
                    ncclGroupEnd();
                    return r;
                }
            }
            return ncclGroupEnd();
        },
        spentS);
}

Status NcclComms::broadcast(const std::string &group, int root, void *data, std::size_t count,
                            Precision type, double &spentS)
{
    auto g = m_impl->find("broadcast", group, root);
    if (!g)
        return g.error();
    Communicator &c = **g;
    return m_impl->run(
        describe("broadcast", group, root), {c.comm},
        [&] {
            return ncclBroadcast(data, data, count, ncclTypeOf(type), c.indexOf(root), c.comm,
                                 m_impl->stream);
        },
        spentS);
}

Status NcclComms::allReduceSum(const std::string &group, void *data, std::size_t count,
                               Precision type, double &spentS)
{
    auto g = m_impl->find("all-reduce", group, -1);
    if (!g)
        return g.error();
    Communicator &c = **g;
    return m_impl->run(
        describe("all-reduce", group), {c.comm},
        [&] {
            return ncclAllReduce(data, data, count, ncclTypeOf(type), ncclSum, c.comm,
                                 m_impl->stream);
        },
        spentS);
}

bool NcclComms::aborted() const
{
    return m_impl->aborted;
}

} // namespace hetplan::runtime::cuda
