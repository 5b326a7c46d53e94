#pragma once

// An emulated accelerator's speed (docs/emulated-cluster.md, "Compute speeds"). A host of the
// emulated cluster computes at a fraction of one core of this machine: each stretch of compute
// runs, then waits, so that its wall time is its thread's CPU time ÷ the speed. The rest of
// what a rank does (its messages, the network stack) runs at the CPU's own speed, as on a host
// whose accelerator is slower than its CPU. At speed 1 (a host of a real cluster) it does
// nothing.

#include "core/base/result.h"
#include "runtime/model/tp_comm.h"

#include <chrono>
#include <cstddef>
#include <string>

namespace hetplan::runtime {

// Where a host of the emulated cluster finds its speed: scripts/emulated-cluster.sh mounts the
// host's own folder there in the host's mount namespace, so no other host sees it.
inline constexpr const char *kEmulatedSpeedPath = "/run/hetplan-cluster/this-host/compute-speed";

// The speed `path` holds: a number above 0 and at most 1; 1 when there is no such file. An
// error names the file, what it holds and what would be valid.
Result<double> readEmulatedSpeed(const std::string &path = kEmulatedSpeedPath);

// The process's compute speed, 1 until set. The worker and the probe set it at their start
// from readEmulatedSpeed(). `speed` is above 0 and at most 1.
void setComputeSpeed(double speed);
double computeSpeed();

// Paces the compute of its scope (a forward, a backward, an optimizer step, a probe's call) to
// computeSpeed(): it waits out the rest when it ends. A wait that is not compute inside the scope
// (a TP all-reduce) is left out by pause() and resume(), as PacedTpComm does. A wait too short for
// the clock to keep (under kShortestWaitS) is carried to the thread's next one, as is what a
// wait overslept, so that many short calls add up to their paced time.
class ComputePace
{
public:
    static constexpr double kShortestWaitS = 2e-4;

    ComputePace();
    ~ComputePace();
    ComputePace(const ComputePace &) = delete;
    ComputePace &operator=(const ComputePace &) = delete;

    // Waits out the compute since the scope began or since resume(), then stops counting.
    void pause();
    // Counts again from now.
    void resume();

private:
    double m_speed;
    bool m_counting = false;
    double m_cpuStartS = 0;
    std::chrono::steady_clock::time_point m_wallStart;
};

// `inner`, with the compute before each all-reduce paced and the all-reduce itself not.
class PacedTpComm final : public TpComm
{
public:
    PacedTpComm(TpComm &inner, ComputePace &pace)
        : m_inner(inner)
        , m_pace(pace)
    {}
    Status allReduceSum(float *data, std::size_t count) override;

private:
    TpComm &m_inner;
    ComputePace &m_pace;
};

} // namespace hetplan::runtime
