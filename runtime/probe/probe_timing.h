#pragma once

// How the probe times a figure (docs/probe.md, "How a figure is timed"): an untimed first call,
// a warm-up, then repetitions of many calls each, reported as median, min and max per call.
// Plain C++17 (the probe's .cu files include it), no device code, so the tests check it on the
// host with a made-up clock.

#include "core/base/result.h"

#include <chrono>
#include <cmath>
#include <vector>

namespace hetplan::runtime::probe {

// Seconds of work before the first timed repetition and per repetition. A GPU reaches its boost
// clock within milliseconds and falls to its sustained clock under load within tenths of a
// second; a layer's GEMMs run for seconds, so the probe times the sustained clock.
struct TimingPlan
{
    double warmUpS = 0;
    double repetitionS = 0;
};

// Every GPU figure's repetition: long beside event and launch overheads and beside clock
// changes, short enough that `--quick` on an 8-GPU host stays within a minute or so.
inline constexpr double kRepetitionS = 0.05;
inline constexpr double kQuickRepetitionS = 0.02;
// A device's first figure runs this long before its timing starts, the others one repetition.
inline constexpr double kSustainedWarmUpS = 0.25;
// At most this many calls per repetition (a call the clock cannot resolve gets this many).
inline constexpr int kMaxCallsPerRepetition = 100000;
// A warm-up stops after this many batches even when the clock says no time passed.
inline constexpr int kMaxWarmUpBatches = 64;

// The timing of one device's figures: a long warm-up for its first figure, and repetitions of
// `kQuickRepetitionS` or `kRepetitionS`.
inline TimingPlan gpuTiming(bool quick, bool firstOnDevice)
{
    const double repetitionS = quick ? kQuickRepetitionS : kRepetitionS;
    return {firstOnDevice ? kSustainedWarmUpS : repetitionS, repetitionS};
}

// The timing of a GPU pair's sweep: a link's speed does not follow the SM clock, so one short
// repetition warms it up and the repetitions stay short (a host has up to 28 pairs × 2 methods).
inline TimingPlan linkTiming()
{
    return {kQuickRepetitionS, kQuickRepetitionS};
}

// Calls that make one repetition last at least `targetS` given one call's seconds: at least 1,
// at most kMaxCallsPerRepetition.
inline int callsPerRepetition(double oneCallS, double targetS)
{
    if (targetS <= 0)
        return 1;
    if (!(oneCallS > 0))
        return kMaxCallsPerRepetition;
    const double calls = std::ceil(targetS / oneCallS);
    return calls < 1 ? 1 : calls > kMaxCallsPerRepetition ? kMaxCallsPerRepetition : int(calls);
}

// Seconds per call, one sample per repetition. `timeCalls(calls)` runs `calls` calls and returns
// Result<double>, the seconds per call. The first call pays for lazy loading, cuBLAS's
// heuristics or NCCL's connection and is not kept; then batches of one repetition's length run
// until `plan.warmUpS` of work has run (none when it is 0), and the last of them sizes the
// repetitions.
template<typename TimeCalls>
Result<std::vector<double>> timeRepetitions(const TimingPlan &plan, int repetitions,
                                            TimeCalls timeCalls)
{
    auto first = timeCalls(1);
    if (!first)
        return first.error();
    double perCallS = *first;
    double warmedS = 0;
    for (int batch = 0; warmedS < plan.warmUpS && batch < kMaxWarmUpBatches; ++batch) {
        const int calls = callsPerRepetition(perCallS, plan.repetitionS);
        auto batchS = timeCalls(calls);
        if (!batchS)
            return batchS.error();
        perCallS = *batchS;
        warmedS += *batchS * calls;
    }
    const int calls = callsPerRepetition(perCallS, plan.repetitionS);
    std::vector<double> seconds;
    seconds.reserve(std::size_t(repetitions > 0 ? repetitions : 0));
    for (int r = 0; r < repetitions; ++r) {
        auto s = timeCalls(calls);
        if (!s)
            return s.error();
        seconds.push_back(*s);
    }
    return seconds;
}

// Repeats `body` (a host call returning nothing) after one warm-up call, timed on the host's
// steady clock: one call per repetition (the TCP ping-pong, whose two ends must run the same
// number of calls), or with `repetitionS` as many calls as last that long (the CPU GEMMs, whose
// calls may be shorter than a wait an emulated host's pace can keep, runtime/model/compute_pace.h).
template<typename Body>
std::vector<double> timedRepetitions(int repetitions, Body body, double repetitionS = 0)
{
    auto seconds = timeRepetitions(
        TimingPlan{0, repetitionS}, repetitions, [&](int calls) -> Result<double> {
            const auto start = std::chrono::steady_clock::now();
            for (int c = 0; c < calls; ++c)
                body();
            return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
                   / calls;
        });
    return seconds ? std::move(*seconds) : std::vector<double>{};
}

} // namespace hetplan::runtime::probe
