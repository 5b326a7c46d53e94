#include "runtime/cuda/model/in_process_tp.h"

#include "runtime/cuda/cuda_status.h"
#include "runtime/cuda/model/kernels.h"

#include <cuda_runtime_api.h>

namespace hetplan::runtime::cuda {

class InProcessTpGroup::Rank final : public DeviceTpComm
{
public:
    Rank(InProcessTpGroup &group, int index)
        : m_group(group)
        , m_index(index)
    {}

    Status allReduceSum(float *data, std::size_t count, StreamHandle stream) override
    {
        const std::size_t bytes = count * sizeof(float);
        if (Status s = m_sum.reserve(bytes); !s)
            return s;
        if (Status s = cudaCall(cudaStreamSynchronize(stream),
                                "cudaStreamSynchronize before an in-process all-reduce");
            !s)
            return s;
        m_group.m_published[std::size_t(m_index)] = data;
        m_group.m_barrier.arrive_and_wait(); // every rank's data is ready
        float *sum = m_sum.as<float>();
        Status summed = copyOnDevice(sum, m_group.m_published[0], bytes, stream);
        for (std::size_t r = 1; summed && r < m_group.m_published.size(); ++r)
            kernels::addInto(sum, m_group.m_published[r], count, stream);
        const cudaError_t e = cudaStreamSynchronize(stream);
        m_group.m_barrier.arrive_and_wait(); // every rank has read every buffer
        if (!summed)
            return summed;
        if (Status s = cudaCall(e, "in-process all-reduce"); !s)
            return s;
        if (Status s = kernels::lastLaunchError("in-process all-reduce"); !s)
            return s;
        return copyOnDevice(data, sum, bytes, stream);
    }

private:
    InProcessTpGroup &m_group;
    int m_index;
    DeviceBuffer m_sum;
};

InProcessTpGroup::InProcessTpGroup(int ranks)
    : m_barrier(ranks)
    , m_published(std::size_t(ranks), nullptr)
{
    for (int r = 0; r < ranks; ++r)
        m_ranks.push_back(std::make_unique<Rank>(*this, r));
}

InProcessTpGroup::~InProcessTpGroup() = default;

DeviceTpComm &InProcessTpGroup::rank(int rank)
{
    return *m_ranks[std::size_t(rank)];
}

} // namespace hetplan::runtime::cuda
