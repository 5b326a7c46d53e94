#pragma once

#include "runtime/cuda/nccl_comms.h"
#include "runtime/program/program.h"
#include "runtime/worker/backend.h"

#include <cstdint>
#include <cuda_runtime_api.h>
#include <memory>

namespace hetplan::runtime {

// The GPU backend (docs/runtime.md, "The GPU backend"): device memory on one CUDA device, the
// model computing on one stream, and NCCL communicators (runtime/cuda/nccl_comms.h) on another.
// Its payload travels in bf16 (wirePrecision, core/model/backend_kind.h; docs/runtime.md,
// "Bytes on the wire"): each call converts the executor's fp32 into a reused bf16 staging
// buffer, sends that, and converts what arrived back.
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
    Status allReduceHostSum(const std::string &group, float *values, std::size_t count) override;
    Status synchronize() override;
    // The device's used memory (cudaMemGetInfo) at its highest sample: every allocation,
    // synchronisation and peak query samples it, the wire staging's growth does not (it is
    // at most one gradient bucket or one micro-batch's activations, and later samples hold
    // it). Includes the CUDA context and NCCL's buffers.
    double peakMemoryGiB() override;
    // Samples the device's used memory now; the model calls it where its own peak lies.
    void sampleMemory();

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
    CudaBackend(cudaStream_t compute, int worldRank);
    // `count` bf16 elements of staging on the device, grown as needed and reused in stream
    // order on the compute stream.
    Result<std::uint16_t *> staging(std::size_t count);
    Status toWire(const float *from, std::size_t count, std::uint16_t *to, float factor = 1.0f);
    Status fromWire(const std::uint16_t *from, std::size_t count, float *to);

    cudaStream_t m_compute = nullptr;
    int m_worldRank = 0;
    std::unique_ptr<cuda::NcclComms> m_comms;
    std::shared_ptr<void> m_staging;
    std::size_t m_stagingCount = 0;
    std::size_t m_peakUsedBytes = 0;
};

} // namespace hetplan::runtime
