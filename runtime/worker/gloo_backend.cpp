#include "runtime/worker/gloo_backend.h"

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

} // namespace

Floats Floats::hold(std::vector<float> values)
{
    auto owner = std::make_shared<std::vector<float>>(std::move(values));
    return {owner, owner->data(), owner->size()};
}

Result<Floats> GlooBackend::allocate(std::size_t count)
{
    return Floats::hold(std::vector<float>(count, 0.0f));
}

Status GlooBackend::exchange(const std::vector<Comm::Transfer> &transfers, double &spentS)
{
    return timedOnHost(spentS, [&] { return m_comm.exchange(transfers); });
}

Status GlooBackend::broadcast(const std::string &group, int root, float *data, std::size_t count,
                              double &spentS)
{
    return timedOnHost(spentS, [&] { return m_comm.broadcast(group, root, data, count); });
}

Status GlooBackend::allReduceSum(const std::string &group, float *data, std::size_t count,
                                 double &spentS)
{
    return timedOnHost(spentS, [&] { return m_comm.allReduceSum(group, data, count); });
}

Status GlooBackend::allReduceHostSum(const std::string &group, float *values, std::size_t count)
{
    return m_comm.allReduceSum(group, values, count);
}

Status GlooBackend::gather(const std::vector<FloatPiece> &pieces, float factor, float *packed)
{
    for (const FloatPiece &piece : pieces)
        packed = std::transform(piece.data, piece.data + piece.count, packed,
                                [&](float g) { return g * factor; });
    return okStatus();
}

Status GlooBackend::scatter(const float *packed, const std::vector<FloatPiece> &pieces)
{
    for (const FloatPiece &piece : pieces) {
        std::copy_n(packed, piece.count, piece.data);
        packed += piece.count;
    }
    return okStatus();
}

double GlooBackend::peakMemoryGiB()
{
    return peakResidentGiB();
}

} // namespace hetplan::runtime
