#pragma once

// What the host emulation of the CUDA runtime and NCCL (cuda_model_emulation.cpp,
// nccl_emulation.cpp) was asked to do, in the order the host asked: kernels and NCCL calls with
// their stream, event records and stream waits, and every place the host waited for the device.
// Nothing runs asynchronously there, so the order of the GPU's work is what these entries allow:
// a stream's entries in order, a wait after the record it names.

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace hetplan::runtime::cuda::emulation {

enum class Kind {
    Kernel, // `name` on `stream` (GEMMs as "gemm", the worker's conversions as "toWire"/"fromWire")
    Record, // `event` recorded on `stream`
    Wait,   // `stream` waits for `event`
    Nccl,   // `name` ("allReduce", "broadcast", "send", "recv") of `count` elements on `stream`
    HostWait, // the host waited for the device (`name`: the call)
};

struct Entry
{
    Kind kind = Kind::Kernel;
    const void *stream = nullptr;
    const void *event = nullptr;
    std::string name;
    std::size_t count = 0;
};

// Read `log()` only while no other thread uses the emulation; `note` may be called from any thread.
std::vector<Entry> &log();
void note(Entry entry);

// Work the emulated NCCL left unfinished on a stream: a call of a communicator of several
// members whose peers have not all made theirs. Until it is done, an event recorded on that
// stream after it, or on a stream that waits for such an event, is not complete
// (cudaEventQuery answers cudaErrorNotReady), a synchronisation with it waits, and memory freed
// on such a stream (cudaFreeAsync) is released only then, as CUDA orders it.
using Work = std::shared_ptr<std::atomic<bool>>;
void enqueue(const void *stream, Work work);

// The emulated NCCL's stalled member, as a stopped process: member `rank` of the communicator
// named `commName` (the group key) blocks in each call on it after its first `afterCalls` (its
// warm-up at setup is one) until releaseStalled().
void stallMember(const std::string &commName, int rank, int afterCalls);
void releaseStalled();

} // namespace hetplan::runtime::cuda::emulation
