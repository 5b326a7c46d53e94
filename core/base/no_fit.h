#pragma once

#include <string>
#include <vector>

namespace hetplan {

// One GPU that a candidate plan overflows.
struct GpuOverflow
{
    std::string gpu;     // "C:0"
    std::string machine; // "C", so a front end can point at it
    std::string gpuType; // "RTX3090-24G"
    double usedGiB = 0;
    double capacityGiB = 0;

    double overGiB() const { return usedGiB - capacityGiB; }
};

// Why no plan fits in memory, as data: the candidate that came closest (the lowest peak of used
// / capacity over its GPUs) and its GPUs over capacity, the largest overflow first. A planner
// that finds nothing attaches it to its NoPlanFits error (Error::noFit); the CLI and the app
// print it with noFitText and point at `over.front().machine`.
struct NoFit
{
    std::string closest; // the candidate in a few words: "dp=1, tp=2, pp=4, micro-batch 1"
    std::vector<GpuOverflow> over;
};

// "the closest (dp=1, tp=2, pp=4) needs 31.9 GiB on C:0 (RTX3090-24G, 24.0 GiB), ... and 2 more
// GPUs over capacity": the first three GPUs named, the rest counted.
std::string noFitText(const NoFit &noFit);
// The same, one line per GPU over capacity, for a front end to list under the error:
// "closest layout: dp=1, tp=2, pp=4, micro-batch 1", then
// "C:0 (RTX3090-24G) needs 31.9 GiB of 24.0 GiB: 7.9 GiB over".
std::vector<std::string> noFitLines(const NoFit &noFit);

} // namespace hetplan
