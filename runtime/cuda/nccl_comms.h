#pragma once

// The NCCL communicators of one rank (docs/runtime.md, "The GPU backend"): one per program group
// this rank belongs to, created together in one NCCL group (their ids shared in the program's one
// global group order) and warmed up with a one-element all-reduce each, all within the setup
// budget (nccl_setup.h setupTimeout).
//
// Streams (docs/runtime.md, "What overlaps"): a group's calls run on the stream of its lane,
// the communication stream (TP, hops, world) or the gradient stream (data-parallel groups), so a
// gradient reduction never queues behind a TP all-reduce or a hop. A communication-lane call
// first waits (by an event) for the compute stream's queued work; a gradient-lane call only for
// what its stream was told to wait for (follow). Each call is timed by CUDA events on its
// stream.
//
// A call returns once NCCL has enqueued it, without waiting for the GPU; who needs its result
// makes the compute stream wait for it (computeFollows). The host waits only in drain(), at the
// end of an iteration or before it reads a result, sleeping between polls of the calls' events
// and of NCCL's asynchronous errors, up to the run's timeout; on an error or a timeout every
// communicator of the rank is aborted, so a dead peer makes this rank fail with a message
// instead of hanging, and its own peers see the abort.

#include "core/base/result.h"
#include "core/model/workload.h"
#include "runtime/comm/comm.h"
#include "runtime/program/program.h"

#include <chrono>
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

// Which stream a group's calls run on.
enum class Lane { Communication, Gradients };

struct NcclGroup
{
    std::string key;
    std::vector<int> members; // world ranks; a member's index is its rank in the communicator
    std::optional<Transport> transport;
    Lane lane = Lane::Communication;
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
    // ncclBfloat16 or ncclFloat16; docs/runtime.md, "Bytes on the wire"); the buffers must stay
    // untouched until the call's work is done on its stream. Each call is enqueued on its group's
    // stream and returns; the next drain() adds its time on that stream to `spentS`, which must
    // outlive it. Exchange posts its sends and receives in one NCCL group, so mirror-image
    // neighbours cannot deadlock; its transfers' groups share one lane.
    Status exchange(const std::vector<NcclTransfer> &transfers, Precision type, double &spentS);
    Status broadcast(const std::string &group, int root, void *data, std::size_t count,
                     Precision type, double &spentS);
    Status allReduceSum(const std::string &group, void *data, std::size_t count, Precision type,
                        double &spentS);

    // The stream `group`'s calls run on.
    Result<cudaStream_t> streamOf(const std::string &group);
    // The group's stream waits for `events` (recorded on the compute stream) before its next
    // work; with none, for everything queued on the compute stream so far.
    Status follow(const std::string &group, const std::vector<cudaEvent_t> &events);
    // The compute stream's later work waits for everything queued on the group's stream so far.
    Status computeFollows(const std::string &group);
    // Waits for every call enqueued so far, up to the run's timeout, watching NCCL's
    // asynchronous errors, and adds each call's time to its `spentS`.
    Status drain();
    // The same within `budget` instead of the run's timeout: for calls whose peers may
    // legitimately come far apart (the pre-flight's start of each check).
    Status drain(std::chrono::milliseconds budget);

    bool aborted() const;

private:
    struct Impl;
    explicit NcclComms(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

} // namespace hetplan::runtime::cuda
