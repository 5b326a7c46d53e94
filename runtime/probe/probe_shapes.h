#pragma once

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
