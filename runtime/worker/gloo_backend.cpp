#include "runtime/worker/gloo_backend.h"

#include "core/model/backend_kind.h"
#include "runtime/worker/peak_memory.h"

#include <algorithm>
#include <chrono>

namespace hetplan::runtime {
namespace {

template<typename Call>
Status timedOnHost(double &spentS, Call call)
{
    const auto start = std::chrono::steady_clock::now();
    Status status = call();
    spentS += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return status;
}

// Gloo sums fp32 only: the CPU backend is the fp32 reference (docs/runtime.md, "Bytes on the
// wire").
Status fp32Only(Precision type)
{
    if (type == Precision::Fp32)
        return okStatus();
    return Error{ErrorKind::Internal, "the Gloo backend sends fp32 only"};
}

} // namespace

Floats Floats::hold(std::vector<float> values)
{
    auto owner = std::make_shared<std::vector<float>>(std::move(values));
    return {owner, owner->data(), owner->size()};
}

GlooBackend::GlooBackend(Comm &comm, std::size_t bucketElements)
    : Backend(wirePrecision(BackendKind::Gloo), bucketElements)
    , m_comm(comm)
{}

Result<Floats> GlooBackend::allocate(std::size_t count)
{
    return Floats::hold(std::vector<float>(count, 0.0f));
}

Status GlooBackend::exchangeAs(const std::vector<Comm::Transfer> &transfers, Precision type,
                               double &spentS)
{
    if (Status s = fp32Only(type); !s)
        return s;
    return timedOnHost(spentS, [&]() -> Status {
        std::vector<Comm::Transfer> fresh;
        std::vector<Comm::Posted> ahead;
        for (const Comm::Transfer &t : transfers) {
            const auto posted = t.send ? m_ahead.end() : m_ahead.find({t.group, t.peer, t.slot});
            if (posted == m_ahead.end()) {
                fresh.push_back(t);
                continue;
            }
            ahead.push_back(std::move(posted->second));
            m_ahead.erase(posted);
        }
        auto posted = m_comm.post(fresh);
        if (!posted)
            return posted.error();
        if (Status s = m_comm.wait(*posted); !s)
            return s;
        for (Comm::Posted &p : ahead)
            if (Status s = m_comm.wait(p); !s)
                return s;
        return okStatus();
    });
}

Status GlooBackend::postAhead(const std::vector<Comm::Transfer> &receives)
{
    if (m_ahead.empty())
        m_aheadTokens.clear(); // every earlier one has landed and been awaited
    for (Comm::Transfer t : receives) {
        if (t.send || t.count != 1)
            return Error{ErrorKind::Internal, "only one-float receives are posted ahead"};
        if (m_ahead.contains({t.group, t.peer, t.slot}))
            return Error{ErrorKind::Internal, "a receive from rank " + std::to_string(t.peer)
                                                  + " in group " + t.group + " at slot "
                                                  + std::to_string(t.slot) + " is posted twice"};
        t.data = &m_aheadTokens.emplace_back(0.0f);
        auto posted = m_comm.post({t});
        if (!posted)
            return posted.error();
        m_ahead.emplace(AheadKey{t.group, t.peer, t.slot}, std::move(posted).value());
    }
    return okStatus();
}

Status GlooBackend::broadcastAs(const std::string &group, int root, float *data, std::size_t count,
                                Precision type, double &spentS)
{
    if (Status s = fp32Only(type); !s)
        return s;
    return timedOnHost(spentS, [&] { return m_comm.broadcast(group, root, data, count); });
}

Status GlooBackend::allReduceSumAs(const std::string &group, float *data, std::size_t count,
                                   Precision type, double &spentS)
{
    if (Status s = fp32Only(type); !s)
        return s;
    return timedOnHost(spentS, [&] { return m_comm.allReduceSum(group, data, count); });
}

Status GlooBackend::allReduceHostSum(const std::string &group, float *values, std::size_t count)
{
    return m_comm.allReduceSum(group, values, count);
}

Status GlooBackend::reduceBucket(const std::string &group, const std::vector<FloatPiece> &pieces,
                                 float factor, Precision type, double &spentS)
{
    if (Status s = fp32Only(type); !s)
        return s;
    std::size_t total = 0;
    for (const FloatPiece &piece : pieces)
        total += piece.count;
    if (m_bucket.size() < total)
        m_bucket.resize(total);
    float *packed = m_bucket.data();
    for (const FloatPiece &piece : pieces)
        packed = std::transform(piece.data, piece.data + piece.count, packed,
                                [&](float g) { return g * factor; });
    if (Status s
        = timedOnHost(spentS, [&] { return m_comm.allReduceSum(group, m_bucket.data(), total); });
        !s)
        return s;
    const float *from = m_bucket.data();
    for (const FloatPiece &piece : pieces) {
        std::copy_n(from, piece.count, piece.data);
        from += piece.count;
    }
    return okStatus();
}

double GlooBackend::peakMemoryGiB()
{
    return peakResidentGiB();
}

} // namespace hetplan::runtime
