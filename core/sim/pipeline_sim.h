#pragma once

#include <span>
#include <vector>

namespace hetplan {

enum class Pass { Forward, Backward };

// Per micro-batch work of one stage in a pipeline. A stage is busy while it computes and
// while it sends (sends are blocking, as the closed form of HexiScale Appendix A assumes).
struct StageWork
{
    double forwardS = 0;      // forward compute + TP comm
    double backwardS = 0;     // backward compute (+ recomputation) + TP comm
    double sendForwardS = 0;  // activation to the next stage (0 for the last stage)
    double sendBackwardS = 0; // gradient to the previous stage (0 for the first stage)
};

// One box of the Gantt chart.
struct Interval
{
    int stage = 0;
    int microBatch = 0;
    Pass pass = Pass::Forward;
    double startS = 0;
    double endS = 0; // includes the blocking send that follows the pass
};

struct Timeline
{
    std::vector<Interval> intervals; // in start order per stage
    double makespanS = 0;
};

// Event-driven simulation of the 1F1B schedule (PipeDream-Flush / Megatron): stage j runs
// min(m, p - j) warm-up forwards, then alternates one forward and one backward, then drains.
// (Megatron writes the same order as p - j - 1 warm-up forwards, then forward-backward pairs,
// then p - j - 1 cool-down backwards.) An operation starts as soon as its stage is free and
// its input has arrived: forward i at stage j after forward i at j - 1 (send included),
// backward i at stage j after backward i at j + 1, backward i at the last stage after its
// own forward i.
Timeline simulate1F1B(std::span<const StageWork> stages, int microBatches);

// HexiScale Appendix A, eq. 9: Σ_j w_j + (m − 1)·max_j w_j with w_j the stage's
// per-micro-batch total (forward + backward + both sends).
double closedFormPipelineS(std::span<const StageWork> stages, int microBatches);

// How the simulated 1F1B makespan T relates to the closed form C (proofs in pipeline_sim.cpp;
// p stages 0..L, L = p - 1, f_j = forwardS + sendForwardS, w_j the per-micro-batch total):
//  - every schedule, 1F1B included: T ≥ pipelineLowerBoundS = max_k (Σ_{j<k} w_j + m·w_k);
//  - 1F1B: T ≤ C + oneFOneBExcessBoundS, the excess being
//    max(0, max_{j<L} [(L − j)·max_{k≤j} f_k − Σ_{k>j} w_k]);
//  - so T == C exactly when the last stage is a bottleneck (w_L = max w) and the excess
//    bound is 0. Both hold for uniform stages and, more generally, whenever w_j does not
//    decrease along the pipeline. For m = 1 or p = 1, T == C for any stages.
//  - otherwise C is only an estimate: with a faster stage after the bottleneck, 1F1B fills
//    the tail and beats C (random stages: down to ~0.75·C); with a forward-heavy stage in
//    front of backward-heavy or nearly idle ones it can exceed C (random: up to ~1.03·C,
//    adversarial splits: ~1.5·C), never beyond the excess bound.
double pipelineLowerBoundS(std::span<const StageWork> stages, int microBatches);
double oneFOneBExcessBoundS(std::span<const StageWork> stages);

} // namespace hetplan
