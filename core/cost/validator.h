#pragma once

#include <string>
#include <vector>

namespace hetplan {

struct Plan;
struct Problem;
class CostModel;

// One thing wrong with a plan; indices are -1 where they do not apply. The message is
// complete on its own ("pipeline 1, stage 0: …") and names GPUs by "machine:index".
struct PlanIssue
{
    int pipeline = -1;
    int stage = -1;
    int gpu = -1; // flat Topology index
    std::string message;
};

// Checks every rule of docs/formats.md's plan section: GPUs exist and appear at most once, tp × dp
// equals the stage's GPU count, dp_split sums to the micro-batch, stages cover [0, layers)
// in order without gap or overlap, no empty stage or pipeline, training micro-batches sum to
// the global batch, TP groups allowed by the cost model, every communicating pair connected
// over the links its transport uses (core/plan/transport.h), stages holding the same layers
// recording one dp transport, no pp transport on a last stage.
// With a cost model it also checks memory capacity of every GPU.
std::vector<PlanIssue> validatePlan(const Problem &problem, const Plan &plan,
                                    const CostModel *costModel = nullptr);

} // namespace hetplan
