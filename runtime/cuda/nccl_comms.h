#pragma once

// The NCCL communicators of one rank (docs/runtime.md, "The GPU backend"): one per program group
// this rank belongs to, created together in one NCCL group (their ids shared in the program's one
// global group order) and warmed up with a one-element all-reduce each, all within the setup
// budget (nccl_setup.h setupTimeout). Communication runs on its own stream after the compute
// stream's queued work, and every call is timed with CUDA events on that stream.
//
// Every call waits for its work to finish, sleeping between polls of its CUDA event and of
// NCCL's asynchronous error, up to the run's timeout; on an error or a timeout every
// communicator of the rank is aborted, so a dead peer makes this rank fail with a message
// instead of hanging, and its own peers see the abort.

#include "core/base/result.h"
#include "core/model/workload.h"
#include "runtime/comm/comm.h"
#include "runtime/program/program.h"

#include <cuda_runtime_api.h>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hetplan::runtime::cuda {

// One send or receive of `count` elements of its call's element type at `data` (device
// memory), with world rank `peer` of `group`.
struct NcclTransfer
{
    std::string group;
    int peer = 0;
    void *data = nullptr;
    std::size_t count = 0;
    bool send = true;
};

struct NcclGroup
{
    std::string key;
    std::vector<int> members; // world ranks; a member's index is its rank in the communicator
    std::optional<Transport> transport;
};

class NcclComms
{
public:
    // Opens the rendezvous store (options.rendezvous); creates no communicator yet. The CUDA
    // device must be current; `compute` is the stream the model computes on.
    static Result<std::unique_ptr<NcclComms>> open(const CommOptions &options, int worldRank,
                                                   int worldSize, cudaStream_t compute);
    ~NcclComms();
    NcclComms(const NcclComms &) = delete;
    NcclComms &operator=(const NcclComms &) = delete;

    // Same list, same order on every rank; groups without this rank are skipped. Waits up to
    // the setup budget for the other members.
    Status connect(const std::vector<NcclGroup> &groups);
    // The readiness barrier after the rank's own setup (its shard built): returns when every
    // rank of the world has called it, or fails naming the missing ranks after the setup budget.
    Status awaitEveryRankReady();

    // Data pointers are device memory holding `count` elements of `type` (ncclFloat32,
    // ncclBfloat16 or ncclFloat16; docs/runtime.md, "Bytes on the wire"). Each call adds its
    // time on the communication stream to `spentS`. Exchange posts its sends and receives in
    // one NCCL group, so mirror-image neighbours cannot deadlock.
    Status exchange(const std::vector<NcclTransfer> &transfers, Precision type, double &spentS);
    Status broadcast(const std::string &group, int root, void *data, std::size_t count,
                     Precision type, double &spentS);
    Status allReduceSum(const std::string &group, void *data, std::size_t count, Precision type,
                        double &spentS);

    bool aborted() const;

private:
    struct Impl;
    explicit NcclComms(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

} // namespace hetplan::runtime::cuda
