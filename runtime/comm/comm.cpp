#include "runtime/comm/comm.h"

#include "runtime/comm/listen_address.h"
#include "runtime/comm/rendezvous.h"

#include <algorithm>
#include <chrono>
#include <gloo/allreduce.h>
#include <gloo/broadcast.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/transport/unbound_buffer.h>
#include <map>

namespace hetplan::runtime {
namespace {

struct Group
{
    std::shared_ptr<gloo::rendezvous::Context> context;
    std::vector<int> members; // world ranks, index = rank inside the context
};

std::string describeOp(std::string_view op, const std::string &group, int peer)
{
    std::string text = std::string(op) + " in group " + group;
    if (peer >= 0)
        text += " with rank " + std::to_string(peer);
    return text;
}

// A collective's error names the other members: Gloo's own message names only an address.
std::string describeCollective(std::string_view op, const std::string &group,
                               const std::vector<int> &members, int self)
{
    std::vector<int> others;
    for (int m : members)
        if (m != self)
            others.push_back(m);
    if (others.size() == 1)
        return describeOp(op, group, others.front());
    std::string text = std::string(op) + " in group " + group + " (with ranks";
    for (std::size_t i = 0; i < others.size(); ++i)
        text += (i == 0 ? " " : ", ") + std::to_string(others[i]);
    return text + ")";
}

Error commError(std::string_view op, const std::string &group, int peer, std::string_view why)
{
    return {ErrorKind::Internal, describeOp(op, group, peer) + " failed: " + std::string(why)};
}

// The one place Gloo's exceptions become Errors: every Gloo call goes through here. `what`
// names the op, the group and the peer.
template<typename Call>
Status guarded(const std::string &what, Call call)
{
    try {
        call();
        return okStatus();
    } catch (const std::exception &e) {
        return Error{ErrorKind::Internal, what + " failed: " + e.what()};
    }
}

} // namespace

struct Comm::Impl
{
    int worldRank = 0;
    int worldSize = 0;
    std::chrono::milliseconds timeout{60000};
    std::string listenAddress;
    std::unique_ptr<gloo::rendezvous::Store> store;
    std::shared_ptr<gloo::transport::Device> device;
    std::map<std::string, Group> groups;

    // The group and `peer`'s rank inside it, or an Error naming what is missing.
    Result<std::pair<Group *, int>> find(std::string_view op, const std::string &key, int peer)
    {
        auto it = groups.find(key);
        if (it == groups.end())
            return commError(op, key, peer, "this rank is not a member of the group");
        if (peer < 0)
            return std::pair{&it->second, -1};
        const auto &m = it->second.members;
        const auto pos = std::find(m.begin(), m.end(), peer);
        if (pos == m.end())
            return commError(op, key, peer, "the peer is not a member of the group");
        return std::pair{&it->second, static_cast<int>(pos - m.begin())};
    }
};

Comm::Comm(std::unique_ptr<Impl> impl)
    : m_impl(std::move(impl))
{}

Comm::~Comm() = default;

Result<std::unique_ptr<Comm>> Comm::open(const CommOptions &options, int worldRank, int worldSize)
{
    if (Status listen = checkListenAddress(options.listenAddress); !listen)
        return listen.error();
    auto store = openRankStore(options.rendezvous, worldRank, worldSize, options.timeoutS);
    if (!store)
        return store.error();

    auto impl = std::make_unique<Impl>();
    impl->worldRank = worldRank;
    impl->worldSize = worldSize;
    impl->timeout = std::chrono::milliseconds(static_cast<long long>(options.timeoutS * 1000));
    impl->listenAddress = options.listenAddress;
    impl->store = std::move(store).value();
    gloo::transport::tcp::attr attr;
    attr.hostname = options.listenAddress; // never the host-name lookup
    const Status made = guarded("creating the TCP device on " + options.listenAddress,
                                [&] { impl->device = gloo::transport::tcp::CreateDevice(attr); });
    if (!made)
        return made.error();
    return std::unique_ptr<Comm>(new Comm(std::move(impl)));
}

Status Comm::connect(const std::vector<GroupSpec> &groups)
{
    Impl &d = *m_impl;
    for (const GroupSpec &spec : groups) {
        const auto self = std::find(spec.members.begin(), spec.members.end(), d.worldRank);
        if (self == spec.members.end())
            continue;
        if (d.groups.contains(spec.key))
            return commError("connecting", spec.key, -1, "the group key is used twice");
        Group group;
        group.members = spec.members;
        const int groupRank = static_cast<int>(self - spec.members.begin());
        const int groupSize = static_cast<int>(spec.members.size());
        const Status connected = guarded(describeOp("connecting", spec.key, -1), [&] {
            group.context = std::make_shared<gloo::rendezvous::Context>(groupRank, groupSize);
            group.context->setTimeout(d.timeout);
            gloo::rendezvous::PrefixStore prefixed(spec.key, *d.store);
            group.context->connectFullMesh(prefixed, d.device);
        });
        if (!connected)
            return connected.error();
        d.groups.emplace(spec.key, std::move(group));
    }
    return okStatus();
}

Status Comm::send(const std::string &group, int peer, const float *data, std::size_t count,
                  std::uint64_t slot)
{
    // Gloo's unbound buffers take a non-const pointer but only read it for a send.
    return exchange({{group, peer, const_cast<float *>(data), count, slot, true}});
}

// `data` is written by the receive; clang-tidy only sees it stored in a Transfer.
Status Comm::recv(const std::string &group, int peer,
                  float *data, // NOLINT(readability-non-const-parameter)
                  std::size_t count, std::uint64_t slot)
{
    return exchange({{group, peer, data, count, slot, false}});
}

struct Comm::Posted::Buffers
{
    std::vector<std::unique_ptr<gloo::transport::UnboundBuffer>> of;
};

Comm::Posted::Posted() = default;
Comm::Posted::~Posted() = default;
Comm::Posted::Posted(Posted &&) noexcept = default;
Comm::Posted &Comm::Posted::operator=(Posted &&) noexcept = default;

Status Comm::exchange(const std::vector<Transfer> &transfers)
{
    auto posted = post(transfers);
    if (!posted)
        return posted.error();
    return wait(*posted);
}

Result<Comm::Posted> Comm::post(const std::vector<Transfer> &transfers)
{
    Posted posted;
    posted.m_buffers = std::make_unique<Posted::Buffers>();
    // Receives first. Gloo moves a send's data only after the peer's "ready to receive" notice,
    // and that notice shares the socket with data in order: posted after a send, it would queue
    // behind the send's payload, and the peer's payload in the other direction would start one
    // message later (docs/runtime.md, "Phases per rank").
    std::vector<Transfer> ordered(transfers);
    std::stable_partition(ordered.begin(), ordered.end(),
                          [](const Transfer &t) { return !t.send; });
    for (const Transfer &t : ordered) {
        const char *op = t.send ? "send" : "recv";
        auto found = m_impl->find(op, t.group, t.peer);
        if (!found)
            return found.error();
        // Named copies, not a structured binding: clang 14, which scripts/check-tidy.py runs,
        // cannot capture a structured binding in a lambda yet (GCC 12 can).
        Group *g = found->first;
        const int peerIndex = found->second;
        auto &buffers = posted.m_buffers->of;
        const Status made = guarded(describeOp(op, t.group, t.peer), [&] {
            buffers.push_back(g->context->createUnboundBuffer(t.data, t.count * sizeof(float)));
            if (t.send)
                buffers.back()->send(peerIndex, t.slot);
            else
                buffers.back()->recv(peerIndex, t.slot);
        });
        if (!made)
            return made.error();
        posted.m_transfers.push_back(t);
    }
    return posted;
}

Status Comm::wait(Posted &posted)
{
    if (posted.m_transfers.empty())
        return okStatus();
    const auto deadline = std::chrono::steady_clock::now() + m_impl->timeout;
    for (std::size_t i = 0; i < posted.m_transfers.size(); ++i) {
        const Transfer &t = posted.m_transfers[i];
        const char *op = t.send ? "send" : "recv";
        gloo::transport::UnboundBuffer &buffer = *posted.m_buffers->of[i];
        bool done = false;
        const Status waited = guarded(describeOp(op, t.group, t.peer), [&] {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                deadline - std::chrono::steady_clock::now());
            const auto wait = std::max(left, std::chrono::milliseconds(1));
            done = t.send ? buffer.waitSend(wait) : buffer.waitRecv(wait);
        });
        if (!waited)
            return waited.error();
        if (!done)
            return commError(op, t.group, t.peer,
                             "timed out after " + std::to_string(m_impl->timeout.count()) + " ms");
    }
    posted.m_transfers.clear();
    posted.m_buffers->of.clear();
    return okStatus();
}

Status Comm::broadcast(const std::string &group, int root, float *data, std::size_t count)
{
    auto found = m_impl->find("broadcast", group, root);
    if (!found)
        return found.error();
    Group *g = found->first;
    const int rootIndex = found->second;
    const std::string what = describeCollective("broadcast", group, g->members, m_impl->worldRank);
    return guarded(what, [&] {
        gloo::BroadcastOptions opts(g->context);
        opts.setOutput(data, count);
        opts.setRoot(rootIndex);
        opts.setTimeout(m_impl->timeout);
        gloo::broadcast(opts);
    });
}

Status Comm::allReduceSum(const std::string &group, float *data, std::size_t count)
{
    return allReduceSumWithin(group, data, count, m_impl->timeout);
}

Status Comm::barrier(const std::string &group, double timeoutS)
{
    float token = 0;
    return allReduceSumWithin(group, &token, 1,
                              std::chrono::milliseconds(static_cast<long long>(timeoutS * 1000)));
}

Status Comm::allReduceSumWithin(const std::string &group, float *data, std::size_t count,
                                std::chrono::milliseconds timeout)
{
    auto found = m_impl->find("all-reduce", group, -1);
    if (!found)
        return found.error();
    Group *g = found->first;
    const std::string what = describeCollective("all-reduce", group, g->members, m_impl->worldRank);
    return guarded(what, [&] {
        gloo::AllreduceOptions opts(g->context);
        opts.setOutput(data, count);
        opts.setReduceFunction(
            static_cast<void (*)(void *, const void *, const void *, std::size_t)>(
                &gloo::sum<float>));
        opts.setTimeout(timeout);
        gloo::allreduce(opts);
    });
}

int Comm::worldRank() const
{
    return m_impl->worldRank;
}

bool Comm::inGroup(const std::string &group) const
{
    return m_impl->groups.contains(group);
}

} // namespace hetplan::runtime
