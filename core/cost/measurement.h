#pragma once

#include "core/base/result.h"
#include "core/cost/rank_phases.h"
#include "core/model/backend_kind.h"
#include "core/plan/estimate.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hetplan {

// What a run of a plan measured (hetplan.measurement/1, docs/runtime.md "The measurement
// file"): the same breakdown as a plan's estimate, per iteration, per stage and per rank.
// Times are seconds, memory GiB.

// One rank's iteration (docs/runtime.md, "Phases per rank"). The parts add up to wallS:
// compute is what is left after the communication and waiting parts are taken out.
struct RankIteration
{
    double wallS = 0;
    Breakdown breakdown;
    // Its hops per neighbour and direction; empty in files written before they were recorded.
    std::optional<HopPhases> hops;
};

struct MeasuredRank
{
    int rank = 0;
    std::string gpu;  // "A:0"
    std::string host; // where it ran; empty = this machine
    int pipeline = 0;
    int stage = 0;
    int replica = 0;
    int tpIndex = 0;
    double peakMemoryGiB = 0; // resident set high-water mark of the process (CPU), or the
                              // device memory in use at its highest sample (GPU)
    // The cost model's memory for this rank's GPU under the plan as written (GPU runs; 0: none
    // recorded), so peakMemoryGiB can be read against it.
    double predictedMemoryGiB = 0;
    std::vector<RankIteration> iterations;
};

struct MeasuredIteration
{
    double iterationS = 0; // the slowest rank's wall time
    double tokensPerS = 0;
    double loss = 0;     // mean token cross-entropy over the global batch, before the update
    Breakdown breakdown; // the rank's that ends the iteration (endingRank, the largest wall time)
};

struct MeasuredStage
{
    int pipeline = 0;
    int stage = 0;
    std::vector<int> ranks;
    Breakdown breakdown;      // per iteration, mean over its ranks and the timed iterations
    double peakMemoryGiB = 0; // the largest of its ranks
};

// How the run was made.
struct MeasurementRun
{
    BackendKind backend = BackendKind::Gloo;
    std::string planFile;
    std::string model;
    int scale = 1;
    int iterations = 0;
    std::uint64_t seed = 0;
    int globalBatch = 0;
    int seqLen = 0;                 // tokens per sequence as trained (after --scale)
    std::vector<std::string> hosts; // distinct hosts of the ranks; "localhost" for local runs
    // planDigest of the plan as it ran (core/plan/plan_digest.h); empty in files written before
    // measurements recorded it, whose plan cannot be checked.
    std::string planDigest;
};

struct Measurement
{
    MeasurementRun run;
    // Means over the timed iterations: every iteration after the first (warm-up: first
    // touches of memory, caches warming up) when there are two or more, else the only one.
    double iterationS = 0;
    double tokensPerS = 0;
    Breakdown breakdown;
    std::vector<double> loss; // one per iteration
    std::vector<MeasuredIteration> iterations;
    std::vector<MeasuredStage> stages;
    std::vector<MeasuredRank> ranks; // ascending rank
};

// Fills iterations, stages and the means from run, loss and ranks (the ranks are sorted).
// The losses must have one value per iteration and every rank as many iterations.
void summarizeMeasurement(Measurement &measurement);

// One measurement from the per-rank ones every worker writes: their ranks together, the hosts
// they ran on, and the loss (every rank reports the same global loss). Refuses parts of
// different runs (plan, plan digest, model, scale, iterations, seed, batch) or a rank given
// twice.
Result<Measurement> mergeRankMeasurements(std::vector<Measurement> parts);

// The first iteration the means count (0 or 1, see Measurement).
int firstTimedIteration(int iterations);

// Each rank's phases, means over the timed iterations, in the order of measurement.ranks; a
// rank's hops are set only when every one of its iterations recorded them (`hopsRecorded`).
struct MeasuredRankPhases
{
    RankPhases phases;
    bool hopsRecorded = false;
};
std::vector<MeasuredRankPhases> measuredRankPhases(const Measurement &measurement);

} // namespace hetplan
