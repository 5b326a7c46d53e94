#pragma once

#include "core/io/probe_file.h"
#include "core/model/model_spec.h"

#include <string>
#include <vector>

namespace hetplan::runtime::probe {

// C[m×n] = A[m×k]·B[k×n], one of a transformer layer's forward GEMMs on one TP shard, and how
// the GPU runtime's forward pass makes it (runtime/cuda/model/cuda_layer.cpp: projectOutIn for
// the weights stored out × in, projectInOut for those stored in × out).
struct GemmShape
{
    std::string label;
    int m = 0;
    int n = 0;
    int k = 0;
    // B stored n × k and read transposed (the q, k, v, gate and up weights), else k × n.
    bool weightsTransposed = false;
    // C in bf16 where the runtime multiplies it again (v, gate, up), else fp32 (q, k, and the
    // attention-output and MLP-down partials that are summed across TP).
    bool outputBf16 = false;
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

// One message size of a ping-pong sweep: the one-way time is half of each round trip.
inline SizePoint roundTripPoint(double bytes, const std::vector<double> &roundTripSeconds)
{
    std::vector<double> oneWayS;
    oneWayS.reserve(roundTripSeconds.size());
    for (double t : roundTripSeconds)
        oneWayS.push_back(t / 2);
    return sizePoint(bytes, oneWayS);
}

} // namespace hetplan::runtime::probe
