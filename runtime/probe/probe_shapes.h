#pragma once

#include "core/io/probe_file.h"
#include "core/model/model_spec.h"

#include <string>
#include <vector>

namespace hetplan::runtime::probe {

// C[m×n] = A[m×k]·B[k×n], one of a transformer layer's forward GEMMs on one TP shard.
struct GemmShape
{
    std::string label;
    int m = 0;
    int n = 0;
    int k = 0;
};

// The forward GEMMs of one layer for micro-batch × seq-len tokens, with Megatron's TP cuts
// (docs/cost-models.md): QKV and MLP-up split their outputs, attention-output and MLP-down
// their inputs. SwiGLU's gate and up projections are one GEMM of twice the width.
std::vector<GemmShape> layerGemmShapes(const ModelSpec &model, int microBatch, int seqLen, int tp);

// Message sizes of the pair sweeps, in bytes (multiples of 4): 4 B to 64 MiB by factors of 16,
// and 4 B, 4 KiB, 1 MiB, 16 MiB when quick.
std::vector<double> messageSizesBytes(bool quick);

// The spread of `work` per second over timed calls (a call of 0 s counts as rate 0, which the
// plausibility check flags): TFLOPS from 2·m·n·k / 1e12, GB/s from bytes / 1e9.
inline Spread rateSpread(const std::vector<double> &seconds, double work)
{
    std::vector<double> rates;
    rates.reserve(seconds.size());
    for (double t : seconds)
        rates.push_back(t > 0 ? work / t : 0.0);
    return spreadOf(std::move(rates));
}

// One message size of a pair sweep from its one-way times.
inline SizePoint sizePoint(double bytes, const std::vector<double> &oneWaySeconds)
{
    std::vector<double> timeUs;
    timeUs.reserve(oneWaySeconds.size());
    for (double t : oneWaySeconds)
        timeUs.push_back(t * 1e6);
    return {bytes, spreadOf(std::move(timeUs)), rateSpread(oneWaySeconds, bytes / 1e9)};
}

// Repeats `body` (after one warm-up call) and returns each call's seconds.
template<typename Body>
std::vector<double> timedRepetitions(int repetitions, Body body);

} // namespace hetplan::runtime::probe

#include <chrono>

template<typename Body>
std::vector<double> hetplan::runtime::probe::timedRepetitions(int repetitions, Body body)
{
    body();
    std::vector<double> seconds;
    for (int r = 0; r < repetitions; ++r) {
        const auto start = std::chrono::steady_clock::now();
        body();
        seconds.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return seconds;
}
