#include "runtime/worker/backend.h"

#include <algorithm>

namespace hetplan::runtime {

std::vector<std::vector<FloatPiece>> gradientBuckets(const std::vector<FloatPiece> &pieces,
                                                     std::size_t bucketElements)
{
    std::vector<std::vector<FloatPiece>> buckets;
    std::size_t room = 0; // left in the last bucket
    for (const FloatPiece &piece : pieces) {
        std::size_t done = 0;
        while (done < piece.count) {
            if (room == 0) {
                buckets.emplace_back();
                room = std::max<std::size_t>(bucketElements, 1);
            }
            const std::size_t take = std::min(room, piece.count - done);
            buckets.back().push_back({piece.data + done, take, piece.gradientsReady});
            done += take;
            room -= take;
        }
    }
    return buckets;
}

Precision Backend::typeOf(Traffic traffic) const
{
    return traffic == Traffic::Payload ? m_wire : Precision::Fp32;
}

void Backend::count(const std::string &group, Precision type, std::size_t elements, bool sent)
{
    WireTraffic &t = m_tally[{group, type}];
    const std::int64_t bytes = std::int64_t(elements) * bytesPerElement(type);
    (sent ? t.sentBytes : t.collectiveBytes) += bytes;
    t.elements += std::int64_t(elements);
}

Status Backend::exchange(const std::vector<Comm::Transfer> &transfers, double &spentS,
                         Traffic traffic)
{
    const Precision type = typeOf(traffic);
    if (traffic == Traffic::Payload)
        for (const Comm::Transfer &t : transfers)
            if (t.send)
                count(t.group, type, t.count, true);
    return exchangeAs(transfers, type, spentS);
}

Status Backend::broadcast(const std::string &group, int root, float *data, std::size_t count,
                          double &spentS, Traffic traffic)
{
    const Precision type = typeOf(traffic);
    if (traffic == Traffic::Payload)
        this->count(group, type, count, false);
    return broadcastAs(group, root, data, count, type, spentS);
}

Status Backend::allReduceSum(const std::string &group, float *data, std::size_t count,
                             double &spentS, Traffic traffic)
{
    const Precision type = typeOf(traffic);
    if (traffic == Traffic::Payload)
        this->count(group, type, count, false);
    return allReduceSumAs(group, data, count, type, spentS);
}

Status Backend::allReduceGradients(const std::string &group, const std::vector<FloatPiece> &pieces,
                                   float factor, double &spentS)
{
    std::size_t elements = 0;
    for (const FloatPiece &piece : pieces)
        elements += piece.count;
    if (elements > m_bucketElements)
        return Error{ErrorKind::Internal, "a gradient bucket of " + std::to_string(elements)
                                              + " elements is larger than the backend's "
                                              + std::to_string(m_bucketElements)};
    count(group, m_wire, elements, false);
    return reduceBucket(group, pieces, factor, m_wire, spentS);
}

} // namespace hetplan::runtime
