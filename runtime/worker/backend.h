#pragma once

// What the executor needs from a backend (docs/runtime.md, "Backends"): memory for the
// activations and gradients it holds between stages, and the communication of one rank's
// groups. Gloo on host floats (gloo_backend.h) and NCCL on device memory (cuda_backend.h) run
// the same programs through it. The executor holds fp32; each backend sends its wire type and
// tallies what it sent per group.

#include "core/base/result.h"
#include "core/model/workload.h"
#include "runtime/comm/comm.h"
#include "runtime/worker/gradient_bucket.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

struct CUevent_st; // cudaEvent_t is CUevent_st *; this header stays free of CUDA's headers

namespace hetplan::runtime {

// Floats in a backend's memory (host or device), kept alive by `owner`.
struct Floats
{
    std::shared_ptr<void> owner;
    float *data = nullptr;
    std::size_t count = 0;

    std::span<const float> view() const { return {data, count}; }
    // Host floats, taking over the vector without a copy.
    static Floats hold(std::vector<float> values);
};

// `count` floats at `data`, in the backend's memory: one piece of a gradient bucket.
struct FloatPiece
{
    float *data = nullptr;
    std::size_t count = 0;
    // GPU stage only: recorded on the compute stream after the backward work that last adds
    // into this gradient (ParamView::gradientsReady); null where that is everything queued.
    CUevent_st *gradientsReady = nullptr;
};

// What a backend put on the wire for one group, payload only (handshakes and the host sums
// are not counted): what the cost model charges per group (docs/cost-models.md, "Bytes on the
// wire"). Sends count on the sender; a collective counts its buffer on every member.
struct WireTraffic
{
    std::int64_t sentBytes = 0;       // point-to-point sends of this rank
    std::int64_t collectiveBytes = 0; // buffers of all-reduces and broadcasts
    std::int64_t elements = 0;        // both, in elements
};
// By group key and element type.
using WireTally = std::map<std::pair<std::string, Precision>, WireTraffic>;

// What a transfer or collective carries: the run's payload, in the backend's wire type, or a
// one-float handshake (the bubble, docs/runtime.md "Phases"), always fp32.
enum class Traffic { Payload, Handshake };

// Splits `pieces`, in order, into buckets of at most `bucketElements` elements each; a piece
// longer than a bucket is cut across buckets. Gradient sync reduces one bucket at a time, the
// last bucket first (pieces in the shard's order: the last layers' gradients are ready first).
std::vector<std::vector<FloatPiece>> gradientBuckets(const std::vector<FloatPiece> &pieces,
                                                     std::size_t bucketElements);

class Backend
{
public:
    static constexpr std::size_t kBucketElements = kGradientBucketElements;

    // `wire`: the element type of the payload it sends (wirePrecision of its kind,
    // core/model/backend_kind.h).
    explicit Backend(Precision wire, std::size_t bucketElements = kBucketElements)
        : m_wire(wire)
        , m_bucketElements(bucketElements)
    {}
    virtual ~Backend() = default;

    Precision wire() const { return m_wire; }
    std::size_t bucketElements() const { return m_bucketElements; }
    const WireTally &tally() const { return m_tally; }

    // Zero-filled floats in the backend's memory.
    virtual Result<Floats> allocate(std::size_t count) = 0;

    // Communication on fp32 buffers in backend memory, as Comm does it (comm.h); the payload
    // travels in wire() and arrives back in fp32. Each call adds the time it took to `spentS`:
    // wall time on the host for Gloo, CUDA events on the communication stream for NCCL.
    Status exchange(const std::vector<Comm::Transfer> &transfers, double &spentS,
                    Traffic traffic = Traffic::Payload);
    Status broadcast(const std::string &group, int root, float *data, std::size_t count,
                     double &spentS, Traffic traffic = Traffic::Payload);
    Status allReduceSum(const std::string &group, float *data, std::size_t count, double &spentS,
                        Traffic traffic = Traffic::Payload);
    // Sums one bucket of gradients (at most bucketElements()) over `group`, each piece
    // multiplied by `factor` first, in wire(): packed into the backend's staging, reduced, and
    // unpacked into the pieces. `spentS` gets the all-reduce only.
    Status allReduceGradients(const std::string &group, const std::vector<FloatPiece> &pieces,
                              float factor, double &spentS);
    // Gradient sync of `group` reduces `pieces` next: a backend whose communication runs beside
    // the compute (CUDA) orders the group's next calls after the work that produced them, and
    // no later. Gloo runs everything in order on the host: nothing to do.
    virtual Status awaitGradients(const std::string &group, const std::vector<FloatPiece> &pieces)
    {
        (void)group;
        (void)pieces;
        return okStatus();
    }
    // Handshakes posted ahead (docs/runtime.md, "Phases"): postAhead posts the receiving
    // halves of the handshakes of an iteration before it starts, into floats the backend
    // owns; a later exchange naming the same group, peer and slot awaits the posted receive
    // instead of posting one. A rank that reaches a handshake last then finds its peers'
    // tokens already there, so a handshake's time is waiting only, never a round trip. Gloo
    // does; a backend whose receives cannot be posted ahead (NCCL) keeps the default.
    virtual bool postsAhead() const { return false; }
    virtual Status postAhead(const std::vector<Comm::Transfer> &receives)
    {
        (void)receives;
        return okStatus();
    }
    // Receives posted ahead and not awaited yet: none once an iteration has ended.
    virtual std::size_t postedAhead() const { return 0; }

    // The same on host floats, untimed and in fp32: the iteration barrier and the loss sum.
    virtual Status allReduceHostSum(const std::string &group, float *values, std::size_t count) = 0;

    // Waits for the work queued on the device; an iteration's wall time ends here.
    virtual Status synchronize() = 0;
    // The rank's peak memory so far, GiB: the device's for CUDA, the process's resident set
    // for the CPU.
    virtual double peakMemoryGiB() = 0;

protected:
    // The same, with the element type each buffer travels in.
    virtual Status exchangeAs(const std::vector<Comm::Transfer> &transfers, Precision type,
                              double &spentS)
        = 0;
    virtual Status broadcastAs(const std::string &group, int root, float *data, std::size_t count,
                               Precision type, double &spentS)
        = 0;
    virtual Status allReduceSumAs(const std::string &group, float *data, std::size_t count,
                                  Precision type, double &spentS)
        = 0;
    virtual Status reduceBucket(const std::string &group, const std::vector<FloatPiece> &pieces,
                                float factor, Precision type, double &spentS)
        = 0;

private:
    Precision typeOf(Traffic traffic) const;
    void count(const std::string &group, Precision type, std::size_t elements, bool sent);

    Precision m_wire;
    std::size_t m_bucketElements;
    WireTally m_tally;
};

} // namespace hetplan::runtime
