#pragma once

// What the executor needs from a backend (docs/runtime.md, "Backends"): memory for the
// activations and gradients it holds between stages, and the communication of one rank's
// groups. Gloo on host floats (gloo_backend.h) and NCCL on device memory (cuda_backend.h) run
// the same programs through it.

#include "core/base/result.h"
#include "runtime/comm/comm.h"

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

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

// `count` floats at `data`, in the backend's memory: one piece of a packed gradient buffer.
struct FloatPiece
{
    float *data = nullptr;
    std::size_t count = 0;
};

class Backend
{
public:
    virtual ~Backend() = default;

    // Zero-filled floats in the backend's memory.
    virtual Result<Floats> allocate(std::size_t count) = 0;

    // Communication on backend memory, as Comm does it (comm.h). Each call adds the time it
    // took to `spentS`: wall time on the host for Gloo, CUDA events on the communication stream
    // for NCCL.
    virtual Status exchange(const std::vector<Comm::Transfer> &transfers, double &spentS) = 0;
    virtual Status broadcast(const std::string &group, int root, float *data, std::size_t count,
                             double &spentS)
        = 0;
    virtual Status allReduceSum(const std::string &group, float *data, std::size_t count,
                                double &spentS)
        = 0;
    // The same on host floats, untimed: the iteration barrier and the loss sum.
    virtual Status allReduceHostSum(const std::string &group, float *values, std::size_t count) = 0;

    // Packs `pieces`, each multiplied by `factor`, one after the other into `packed`, and
    // unpacks them again: gradient sync sends one buffer per group.
    virtual Status gather(const std::vector<FloatPiece> &pieces, float factor, float *packed) = 0;
    virtual Status scatter(const float *packed, const std::vector<FloatPiece> &pieces) = 0;

    // Waits for the work queued on the device; an iteration's wall time ends here.
    virtual Status synchronize() = 0;
    // The rank's peak memory so far, GiB: the device's for CUDA, the process's resident set
    // for the CPU.
    virtual double peakMemoryGiB() = 0;
};

} // namespace hetplan::runtime
