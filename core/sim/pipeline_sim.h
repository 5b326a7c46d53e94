#pragma once

#include <span>
#include <vector>

namespace hetplan {

enum class Pass { Forward, Backward };

// Per micro-batch work of one stage in a pipeline. A stage is busy while it computes and
// while it sends (sends are blocking, as the closed form of HexiScale Appendix A assumes).
struct StageWork
{
    double forwardS = 0;       // forward compute + TP comm
    double backwardS = 0;      // backward compute (+ recomputation) + TP comm
    double sendForwardS = 0;   // activation to the next stage (0 for the last stage)
    double sendBackwardS = 0;  // gradient to the previous stage (0 for the first stage)
};

// One box of the Gantt chart.
struct Interval
{
    int stage = 0;
    int microBatch = 0;
    Pass pass = Pass::Forward;
    double startS = 0;
    double endS = 0;           // includes the blocking send that follows the pass
};

struct Timeline
{
    std::vector<Interval> intervals; // in start order per stage
    double makespanS = 0;
};

// Event-driven simulation of the 1F1B schedule (PipeDream-Flush / Megatron): stage j runs
// min(m, p - j) warm-up forwards, then alternates one forward and one backward, then drains.
Timeline simulate1F1B(std::span<const StageWork> stages, int microBatches);

// HexiScale Appendix A, eq. 9: Σ_j w_j + (m − 1)·max_j w_j with w_j the stage's
// per-micro-batch total (forward + backward + both sends).
double closedFormPipelineS(std::span<const StageWork> stages, int microBatches);

} // namespace hetplan
