#pragma once

#include "runtime/worker/backend.h"

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
    Comm &m_comm;
    std::vector<float> m_bucket; // gradient staging, reused: at most one bucket
};

} // namespace hetplan::runtime
