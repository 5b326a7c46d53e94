#pragma once

#include "runtime/cuda/nccl_comms.h"
#include "runtime/program/program.h"
#include "runtime/worker/backend.h"

#include <cuda_runtime_api.h>
#include <memory>

namespace hetplan::runtime {

// The GPU backend (docs/runtime.md, "The GPU backend"): device memory on one CUDA device, the
// model computing on one stream, and NCCL communicators (runtime/cuda/nccl_comms.h) on another.
class CudaBackend final : public Backend
{
public:
    // Makes `device` current and creates the compute stream; connects nothing yet.
    static Result<std::unique_ptr<CudaBackend>> open(const CommOptions &options, int worldRank,
                                                     int worldSize, int device);
    ~CudaBackend() override;
    CudaBackend(const CudaBackend &) = delete;
    CudaBackend &operator=(const CudaBackend &) = delete;

    // One communicator per group of Executor::groupsToConnect, with the plan's transports.
    Status connect(const JobProgram &program);
    // Returns once every rank has called it (NcclComms::awaitEveryRankReady).
    Status awaitEveryRankReady() { return m_comms->awaitEveryRankReady(); }
    cudaStream_t computeStream() const { return m_compute; }

    Result<Floats> allocate(std::size_t count) override;
    Status exchange(const std::vector<Comm::Transfer> &transfers, double &spentS) override;
    Status broadcast(const std::string &group, int root, float *data, std::size_t count,
                     double &spentS) override;
    Status allReduceSum(const std::string &group, float *data, std::size_t count,
                        double &spentS) override;
    Status allReduceHostSum(const std::string &group, float *values, std::size_t count) override;
    Status gather(const std::vector<FloatPiece> &pieces, float factor, float *packed) override;
    Status scatter(const float *packed, const std::vector<FloatPiece> &pieces) override;
    Status synchronize() override;
    // The device's used memory (cudaMemGetInfo) at its highest sample: every allocation,
    // synchronisation and peak query samples it. Includes the CUDA context and NCCL's buffers.
    double peakMemoryGiB() override;
    // Samples the device's used memory now; the model calls it where its own peak lies.
    void sampleMemory();

private:
    explicit CudaBackend(cudaStream_t compute);
    cudaStream_t m_compute = nullptr;
    std::unique_ptr<cuda::NcclComms> m_comms;
    std::size_t m_peakUsedBytes = 0;
};

} // namespace hetplan::runtime
