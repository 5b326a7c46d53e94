#pragma once

#include "runtime/cuda/nccl_comms.h"
#include "runtime/program/program.h"
#include "runtime/worker/backend.h"

#include <cstdint>
#include <cuda_runtime_api.h>
#include <memory>
#include <set>
#include <string>

namespace hetplan::runtime {

// The GPU backend (docs/runtime.md, "The GPU backend"): device memory on one CUDA device, the
// model computing on one stream, and NCCL communicators (runtime/cuda/nccl_comms.h) on two
// others: one for TP and hops, one for gradient reduction. Its payload travels in bf16
// (wirePrecision, core/model/backend_kind.h; docs/runtime.md, "Bytes on the wire"): each call
// converts the executor's fp32 into bf16 staging, sends that, and converts what arrived back.
//
// No call waits for the GPU (docs/runtime.md, "What overlaps"): the compute stream waits, by an
// event, for what it reads (a sum, a receive, a reduced gradient bucket), never for a send;
// gradient buckets start as soon as the backward work that produced them is done. The host
// waits in synchronize() (the end of an iteration, or a loss it reads) and in allReduceHostSum.
class CudaBackend final : public Backend
{
public:
    // Makes `device` current and creates the compute stream; connects nothing yet.
    static Result<std::unique_ptr<CudaBackend>> open(const CommOptions &options, int worldRank,
                                                     int worldSize, int device,
                                                     std::size_t bucketElements = kBucketElements);
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
    // Returns once every member of `group` has called it, waiting up to `timeoutS` instead of
    // --timeout-s (the pre-flight's start of each check, docs/launcher.md "Pre-flight").
    Status barrier(const std::string &group, double timeoutS);
    // Waits for the communication enqueued so far (up to --timeout-s, watching NCCL's
    // asynchronous errors), then for the compute stream.
    Status synchronize() override;
    Status awaitGradients(const std::string &group, const std::vector<FloatPiece> &pieces) override;
    // The device's used memory (cudaMemGetInfo) at its highest sample: every allocation,
    // synchronisation and peak query samples it, the wire staging does not (one gradient
    // bucket, and the calls in flight, each at most one micro-batch's activations; the pool
    // keeps them reserved, so the end of an iteration sees them). Includes the CUDA context and
    // NCCL's buffers.
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
    struct Staging;
    CudaBackend(cudaStream_t compute, int worldRank, std::size_t bucketElements);
    // `count` bf16 elements of stream-ordered staging for one call (from the pool, whose
    // blocks stay reserved: docs/runtime.md "Device memory").
    Status stage(std::size_t count, Staging &staging);
    // The gradient buckets' staging, used on the gradient stream only, grown as needed.
    Result<std::uint16_t *> gradientStaging(std::size_t count, cudaStream_t stream);
    // On `stream`, the compute stream by default.
    Status toWire(const float *from, std::size_t count, std::uint16_t *to, float factor = 1.0f,
                  cudaStream_t stream = nullptr);
    Status fromWire(const std::uint16_t *from, std::size_t count, float *to,
                    cudaStream_t stream = nullptr);
    bool gradientGroup(const std::string &group) const;

    cudaStream_t m_compute = nullptr;
    int m_worldRank = 0;
    std::unique_ptr<cuda::NcclComms> m_comms;
    std::set<std::string> m_gradientGroups; // on the gradient stream
    std::shared_ptr<void> m_gradientStaging;
    std::size_t m_gradientStagingCount = 0;
    std::size_t m_peakUsedBytes = 0;
};

} // namespace hetplan::runtime
