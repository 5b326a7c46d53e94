#include "runtime/cuda/nccl_comms.h"

#include "runtime/comm/rendezvous.h"
#include "runtime/cuda/cuda_status.h"
#include "runtime/cuda/nccl_setup.h"
#include "runtime/cuda/nccl_status.h"

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
    std::unique_ptr<NcclConfig> config; // NCCL keeps pointers into it for the communicator's life
    ncclComm_t comm = nullptr;
    std::vector<int> members;
    Lane lane = Lane::Communication;

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

// How the host waits for work that is not done yet without spinning a core: it yields between
// polls for the first 50 µs (a short collective is seen at once), then sleeps for an eighth of
// the time waited so far, from 10 µs up to 1 ms. So it notices completion at most about 1/8
// (plus Linux's timer slack, about 50 µs) late, and a long wait costs at most a poll per
// millisecond.
class Backoff
{
public:
    void pause()
    {
        const auto waited = Clock::now() - m_start;
        if (waited < std::chrono::microseconds(50)) {
            std::this_thread::yield();
            return;
        }
        std::this_thread::sleep_for(std::clamp<Clock::duration>(
            waited / 8, std::chrono::microseconds(10), std::chrono::milliseconds(1)));
    }

private:
    Clock::time_point m_start = Clock::now();
};

} // namespace

struct NcclComms::Impl
{
    int worldRank = 0;
    int worldSize = 0;
    std::chrono::milliseconds timeout{60000};      // every call after setup (--timeout-s)
    std::chrono::milliseconds setupBudget{600000}; // setup's waits (nccl_setup.h setupTimeout)
    std::unique_ptr<gloo::rendezvous::Store> store;
    cudaStream_t compute = nullptr;
    cudaStream_t stream = nullptr;         // the communication lane
    cudaStream_t gradientStream = nullptr; // the gradient lane
    float *warmUp = nullptr; // one device float per communicator, for the warm-up all-reduces
    std::map<std::string, Communicator> groups;
    bool aborted = false;

    // A call enqueued and not yet drained: its timing events and where its time goes.
    struct Pending
    {
        std::string what;
        std::vector<ncclComm_t> comms;
        cudaEvent_t start = nullptr;
        cudaEvent_t end = nullptr;
        double *spentS = nullptr;
    };
    std::vector<Pending> pending;
    std::vector<cudaEvent_t> events;    // created, free for the next record
    std::vector<cudaEvent_t> eventsOut; // recorded since the last drain (pending's among them)

    ~Impl()
    {
        // Abort rather than finalize: finalizing waits for peers that may be gone. A teardown
        // failure has nobody left to report to.
        (void)abortAll();
        if (warmUp != nullptr)
            (void)cudaCall(cudaFree(warmUp), "freeing the warm-up floats");
        for (const std::vector<cudaEvent_t> *list : {&events, &eventsOut})
            for (cudaEvent_t e : *list)
                (void)cudaCall(cudaEventDestroy(e), "destroying a communication event");
        for (cudaStream_t s : {stream, gradientStream})
            if (s != nullptr)
                (void)cudaCall(cudaStreamDestroy(s), "destroying a communication stream");
    }

    cudaStream_t streamOf(const Communicator &c) const
    {
        return c.lane == Lane::Gradients ? gradientStream : stream;
    }

    // An event recorded on `on` now; reused after the next drain.
    Result<cudaEvent_t> recordOn(cudaStream_t on, std::string_view what)
    {
        cudaEvent_t e = nullptr;
        if (!events.empty()) {
            e = events.back();
            events.pop_back();
        } else if (Status s = cudaCall(cudaEventCreate(&e), "creating a communication event"); !s)
            return s.error();
        eventsOut.push_back(e);
        if (Status s = cudaCall(cudaEventRecord(e, on), what); !s)
            return s.error();
        return e;
    }

    // `waiter` waits for the work queued on `on` so far.
    Status streamWaits(cudaStream_t waiter, cudaStream_t on, std::string_view what)
    {
        auto e = recordOn(on, what);
        if (!e)
            return e.error();
        return cudaCall(cudaStreamWaitEvent(waiter, *e, 0), what);
    }

    // The first failure to abort, if any; every communicator is gone either way.
    Status abortAll()
    {
        Status result = okStatus();
        for (auto &[key, g] : groups)
            if (g.comm != nullptr) {
                Status s
                    = ncclCall(ncclCommAbort(g.comm), describe("aborting the communicator", key));
                if (!s && result)
                    result = std::move(s);
                g.comm = nullptr;
            }
        aborted = true;
        return result;
    }

    Error fail(Error error)
    {
        const Status aborting = abortAll();
        error.message
            += "; every NCCL communicator of rank " + std::to_string(worldRank) + " was aborted";
        if (!aborting) {
            error.message += " (";
            error.message += aborting.error().message;
            error.message += ')';
        }
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

    // Whether any of the communicators still has work in progress; NCCL's asynchronous error of
    // any as an Error.
    static Result<bool> inProgress(const std::vector<ncclComm_t> &comms, const std::string &what)
    {
        bool busy = false;
        for (ncclComm_t c : comms) {
            ncclResult_t state = ncclSuccess;
            if (Status s = ncclCall(ncclCommGetAsyncError(c, &state), what); !s)
                return s.error();
            if (state == ncclInProgress)
                busy = true;
            else if (Status s = ncclCall(state, what); !s)
                return s.error();
        }
        return busy;
    }

    // Waits until none of the communicators is in progress, up to `deadline`.
    Status settle(const std::vector<ncclComm_t> &comms, const std::string &what,
                  Clock::time_point deadline, std::chrono::milliseconds budget)
    {
        Backoff backoff;
        for (;;) {
            const Result<bool> busy = inProgress(comms, what);
            if (!busy)
                return fail(busy.error());
            if (!*busy)
                return okStatus();
            if (Clock::now() > deadline)
                return fail(timedOut(what, budget));
            backoff.pause();
        }
    }

    static Error timedOut(const std::string &what, std::chrono::milliseconds budget)
    {
        return {ErrorKind::Internal,
                what + " timed out after " + std::to_string(budget.count()) + " ms"};
    }

    // Enqueues `enqueue` (NCCL calls on `on`, the stream of `comms`' lane), after the compute
    // stream's queued work on the communication lane, between two timing events, and returns
    // once NCCL has taken it (a non-blocking communicator may need a moment: settle). The next
    // drain waits for it and adds its time to `spentS`.
    Status submit(const std::string &what, const std::vector<ncclComm_t> &comms, cudaStream_t on,
                  const std::function<ncclResult_t()> &enqueue, double &spentS)
    {
        // A fault of the model's own kernels shows here as such, not as NCCL's.
        if (const cudaError_t state = cudaStreamQuery(compute); state != cudaErrorNotReady)
            if (Status s = cudaCall(state, "the compute stream's work before " + what); !s)
                return fail(s.error());
        if (const Result<bool> busy = inProgress(comms, what); !busy)
            return fail(busy.error());
        if (on == stream)
            if (Status s = streamWaits(stream, compute, what); !s)
                return fail(s.error());
        auto start = recordOn(on, what);
        if (!start)
            return fail(start.error());
        if (Status s = ncclCall(enqueue(), what); !s)
            return fail(s.error());
        if (Status s = settle(comms, what, Clock::now() + timeout, timeout); !s)
            return s;
        auto end = recordOn(on, what);
        if (!end)
            return fail(end.error());
        pending.push_back({what, comms, *start, *end, &spentS});
        return okStatus();
    }

    // Waits for every pending call, in the order they were enqueued, up to `budget` from now.
    // Whatever it returns, nothing is pending afterwards.
    Status drainWithin(std::chrono::milliseconds budget)
    {
        Status waited = waitForPending(budget);
        pending.clear();
        events.insert(events.end(), eventsOut.begin(), eventsOut.end());
        eventsOut.clear();
        return waited;
    }

    Status waitForPending(std::chrono::milliseconds budget)
    {
        const auto deadline = Clock::now() + budget;
        Backoff backoff;
        for (const Pending &p : pending) {
            for (;;) {
                const cudaError_t state = cudaEventQuery(p.end);
                if (state == cudaSuccess)
                    break;
                if (state != cudaErrorNotReady)
                    return fail(cudaCall(state, p.what).error());
                if (const Result<bool> busy = inProgress(p.comms, p.what); !busy)
                    return fail(busy.error());
                if (Clock::now() > deadline)
                    return fail(timedOut(p.what, budget));
                backoff.pause();
            }
            float ms = 0;
            if (Status s = cudaCall(cudaEventElapsedTime(&ms, p.start, p.end), p.what); !s)
                return fail(s.error());
            *p.spentS += double(ms) / 1000.0;
        }
        return okStatus();
    }

    // The ids of the groups with this rank, then every communicator in one NCCL group (created
    // concurrently, so no member waits while a creator sets up an earlier group, and the whole
    // setup has one budget), then one warm-up all-reduce each.
    Status connect(const std::vector<NcclGroup> &specs);
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
    impl->setupBudget = setupTimeout(options.timeoutS);
    impl->store = std::move(store).value();
    impl->compute = compute;
    for (cudaStream_t *s : {&impl->stream, &impl->gradientStream})
        if (Status made = cudaCall(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking),
                                   "creating a communication stream");
            !made)
            return made.error();
    return std::unique_ptr<NcclComms>(new NcclComms(std::move(impl)));
}

Status NcclComms::connect(const std::vector<NcclGroup> &groups)
{
    return m_impl->connect(groups);
}

Status NcclComms::Impl::connect(const std::vector<NcclGroup> &specs)
{
    const auto deadline = Clock::now() + setupBudget;
    struct Joining
    {
        Communicator *group;
        ncclUniqueId id;
        int rank;
    };
    std::vector<Joining> joining;
    std::vector<ncclComm_t> comms;
    std::string keys;
    // The ids in the one global group order: a creator publishes at once, a member waits for
    // its creator, who waits only for groups earlier in the order.
    for (const NcclGroup &spec : specs) {
        const auto self = std::find(spec.members.begin(), spec.members.end(), worldRank);
        if (self == spec.members.end())
            continue;
        if (groups.contains(spec.key))
            return Error{ErrorKind::Internal, describe("creating the communicator", spec.key)
                                                  + ": the key is used twice"};
        const int groupRank = int(self - spec.members.begin());
        auto id = shareUniqueId(*store, spec.key, groupRank == 0, timeLeft(deadline));
        if (!id)
            return fail(id.error());
        Communicator &g = groups[spec.key];
        g.members = spec.members;
        g.lane = spec.lane;
        g.config = std::make_unique<NcclConfig>(spec.key, spec.transport);
        joining.push_back({&g, *id, groupRank});
        if (!keys.empty())
            keys += ", ";
        keys += spec.key;
    }
    if (joining.empty())
        return okStatus();

    const std::string what = "creating the communicators of NCCL groups " + keys;
    const std::size_t warmUpBytes = joining.size() * sizeof(float);
    if (Status s = cudaCall(cudaMalloc(reinterpret_cast<void **>(&warmUp), warmUpBytes),
                            "allocating the warm-up floats");
        !s)
        return fail(s.error());
    if (Status s
        = cudaCall(cudaMemsetAsync(warmUp, 0, warmUpBytes, compute), "zeroing the warm-up floats");
        !s)
        return fail(s.error());
    if (Status s = ncclCall(ncclGroupStart(), what); !s)
        return fail(s.error());
    for (const Joining &j : joining) {
        Status s = ncclCall(ncclCommInitRankConfig(&j.group->comm, int(j.group->members.size()),
                                                   j.id, j.rank, j.group->config->get()),
                            what);
        if (!s) {
            (void)ncclGroupEnd(); // closes the group; the failure above is what to report
            return fail(s.error());
        }
        comms.push_back(j.group->comm);
    }
    if (Status s = ncclCall(ncclGroupEnd(), what); !s)
        return fail(s.error());
    if (Status s = settle(comms, what, deadline, setupBudget); !s)
        return s;

    // Warmed up one by one in the global group order, each awaited before the next: every rank
    // meets its groups in the same order. The gradient lane first waits for the zeroing.
    if (Status s = streamWaits(gradientStream, compute, what); !s)
        return fail(s.error());
    double warmUpS = 0;
    for (std::size_t i = 0; i < joining.size(); ++i) {
        const Communicator &g = *joining[i].group;
        float *one = warmUp + i;
        const cudaStream_t on = streamOf(g);
        if (Status s = submit(
                describe("the warm-up all-reduce", g.config->config().commName), {g.comm}, on,
                [&] { return ncclAllReduce(one, one, 1, ncclFloat, ncclSum, g.comm, on); },
                warmUpS);
            !s)
            return s;
        if (Status s = drainWithin(timeLeft(deadline)); !s)
            return s;
    }
    return okStatus();
}

Status NcclComms::awaitEveryRankReady()
{
    return awaitEveryRank(*m_impl->store, "nccl-setup", m_impl->worldRank, m_impl->worldSize,
                          m_impl->setupBudget);
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
        if (!posted.empty() && (*g)->lane != posted.front().group->lane)
            return Error{ErrorKind::Internal, describe("an exchange", t.group, t.peer)
                                                  + ": its groups run on different streams"};
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
    const cudaStream_t on = m_impl->streamOf(*posted.front().group);
    return m_impl->submit(
        what, comms, on,
        [&] {
            if (const ncclResult_t r = ncclGroupStart(); r != ncclSuccess)
                return r;
            for (const Posted &p : posted) {
                const NcclTransfer &t = *p.transfer;
                const int peer = p.group->indexOf(t.peer);
                const ncclResult_t r
                    = t.send ? ncclSend(t.data, t.count, ncclTypeOf(type), peer, p.group->comm, on)
                             : ncclRecv(t.data, t.count, ncclTypeOf(type), peer, p.group->comm, on);
                if (r != ncclSuccess && r != ncclInProgress) {
                    (void)ncclGroupEnd(); // closes the group; `r` is what to report
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
    const cudaStream_t on = m_impl->streamOf(c);
    return m_impl->submit(
        describe("broadcast", group, root), {c.comm}, on,
        [&] {
            return ncclBroadcast(data, data, count, ncclTypeOf(type), c.indexOf(root), c.comm, on);
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
    const cudaStream_t on = m_impl->streamOf(c);
    return m_impl->submit(
        describe("all-reduce", group), {c.comm}, on,
        [&] { return ncclAllReduce(data, data, count, ncclTypeOf(type), ncclSum, c.comm, on); },
        spentS);
}

Result<cudaStream_t> NcclComms::streamOf(const std::string &group)
{
    auto g = m_impl->find("ordering", group, -1);
    if (!g)
        return g.error();
    return m_impl->streamOf(**g);
}

Status NcclComms::follow(const std::string &group, const std::vector<cudaEvent_t> &events)
{
    auto on = streamOf(group);
    if (!on)
        return on.error();
    const std::string what = describe("ordering the stream", group);
    if (events.empty())
        return m_impl->streamWaits(*on, m_impl->compute, what);
    for (cudaEvent_t e : events)
        if (Status s = cudaCall(cudaStreamWaitEvent(*on, e, 0), what); !s)
            return s;
    return okStatus();
}

Status NcclComms::computeFollows(const std::string &group)
{
    auto on = streamOf(group);
    if (!on)
        return on.error();
    return m_impl->streamWaits(m_impl->compute, *on,
                               describe("making the compute stream wait for", group));
}

Status NcclComms::drain()
{
    return m_impl->drainWithin(m_impl->timeout);
}

Status NcclComms::drain(std::chrono::milliseconds budget)
{
    return m_impl->drainWithin(budget);
}

bool NcclComms::aborted() const
{
    return m_impl->aborted;
}

} // namespace hetplan::runtime::cuda
