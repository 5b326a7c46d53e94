#pragma once

#include "runtime/worker/backend.h"

namespace hetplan::runtime {

// The CPU backend: host floats and the Gloo groups of comm.h.
class GlooBackend final : public Backend
{
public:
    explicit GlooBackend(Comm &comm)
        : m_comm(comm)
    {}

    Result<Floats> allocate(std::size_t count) override;
    Status exchange(const std::vector<Comm::Transfer> &transfers, double &spentS) override;
    Status broadcast(const std::string &group, int root, float *data, std::size_t count,
                     double &spentS) override;
    Status allReduceSum(const std::string &group, float *data, std::size_t count,
                        double &spentS) override;
    Status allReduceHostSum(const std::string &group, float *values, std::size_t count) override;
    Status gather(const std::vector<FloatPiece> &pieces, float factor, float *packed) override;
    Status scatter(const float *packed, const std::vector<FloatPiece> &pieces) override;
    Status synchronize() override { return okStatus(); }
    double peakMemoryGiB() override;

private:
    Comm &m_comm;
};

} // namespace hetplan::runtime
