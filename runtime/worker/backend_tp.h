#pragma once

// A rank's TP all-reduces through its backend (docs/runtime.md, "Phases": tp_comm): the
// executor's for a training stage, a GPU serving shard's for its stage (gpu_rank.cpp).

#include "runtime/model/tp_comm.h"
#include "runtime/worker/backend.h"

#include <string>
#include <utility>

namespace hetplan::runtime {

// The sums a shard asks for inside forward and backward, over `group` through `backend`, each
// call's time added to `spentS`. An empty group (TP degree 1) has nothing to sum.
class BackendTpComm final : public TpComm
{
public:
    BackendTpComm(Backend &backend, std::string group, double &spentS)
        : m_backend(backend)
        , m_group(std::move(group))
        , m_spentS(spentS)
    {}
    Status allReduceSum(float *data, std::size_t count) override
    {
        if (m_group.empty())
            return okStatus();
        return m_backend.allReduceSum(m_group, data, count, m_spentS);
    }

private:
    Backend &m_backend;
    std::string m_group;
    double &m_spentS;
};

} // namespace hetplan::runtime
