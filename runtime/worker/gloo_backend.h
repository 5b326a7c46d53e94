#pragma once

#include "runtime/worker/backend.h"

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <tuple>

namespace hetplan::runtime {

// The CPU backend: host floats and the Gloo groups of comm.h. It is the fp32 reference: its
// wire type is fp32 (wirePrecision, core/model/backend_kind.h).
class GlooBackend final : public Backend
{
public:
    explicit GlooBackend(Comm &comm, std::size_t bucketElements = kBucketElements);

    Result<Floats> allocate(std::size_t count) override;
    Status allReduceHostSum(const std::string &group, float *values, std::size_t count) override;
    Status synchronize() override { return okStatus(); }
    double peakMemoryGiB() override;
    bool postsAhead() const override { return true; }
    Status postAhead(const std::vector<Comm::Transfer> &receives) override;
    std::size_t postedAhead() const override { return m_ahead.size(); }

protected:
    Status exchangeAs(const std::vector<Comm::Transfer> &transfers, Precision type,
                      double &spentS) override;
    Status broadcastAs(const std::string &group, int root, float *data, std::size_t count,
                       Precision type, double &spentS) override;
    Status allReduceSumAs(const std::string &group, float *data, std::size_t count, Precision type,
                          double &spentS) override;
    Status reduceBucket(const std::string &group, const std::vector<FloatPiece> &pieces,
                        float factor, Precision type, double &spentS) override;

private:
    // A receive posted ahead, by group, peer and slot.
    using AheadKey = std::tuple<std::string, int, std::uint64_t>;

    Comm &m_comm;
    std::map<AheadKey, Comm::Posted> m_ahead;
    std::deque<float> m_aheadTokens; // where they land; a deque keeps each float in place
    std::vector<float> m_bucket;     // gradient staging, reused: at most one bucket
};

} // namespace hetplan::runtime
