#pragma once

// The compiler's view of a plan once its ranks are numbered: shared by the passes that build
// the hops, the 1F1B schedules and the gradient groups (compile.cpp, schedule.cpp,
// gradient_sync.cpp). Not part of the program an executor reads.

#include "runtime/program/program.h"

#include <optional>
#include <vector>

namespace hetplan::runtime {

// One DP replica of one stage: `tpDegree` consecutive ranks from `firstRank`.
struct StageReplica
{
    int pipeline = 0;
    int stage = 0;
    int replica = 0;
    int firstRank = 0;
    int tpDegree = 1;
    int layerBegin = 0;
    int layerEnd = 0;
    int rowOffset = 0; // its rows of every micro-batch, inside the micro-batch
    int rowCount = 0;
    int tpGroup = -1; // -1 when tpDegree = 1

    int leader() const { return firstRank; }
};

// A hop group between a replica of stage s and one of stage s + 1 whose rows overlap.
struct HopLink
{
    int group = 0;
    int upstream = 0;   // index into Layout::replicas
    int downstream = 0; // index into Layout::replicas
    int rowOffset = 0;  // the overlap, inside each micro-batch
    int rowCount = 0;
};

struct Layout
{
    std::vector<StageReplica> replicas; // in rank order
    // firstReplica[p][s] = index of stage s replica 0; the stage's replicas are consecutive.
    std::vector<std::vector<int>> firstReplica;
    std::vector<std::vector<int>> replicaCount;
    std::vector<HopLink> hops; // by upstream pipeline, stage, replica, then downstream replica

    const StageReplica &replica(int p, int s, int r) const
    {
        return replicas[static_cast<size_t>(
            firstReplica[static_cast<size_t>(p)][static_cast<size_t>(s)] + r)];
    }
};

// Builds the data-parallel gradient groups; each rank's GradSync ops, in group order, go to
// syncs[rank] (gradient_sync.cpp).
void addGradientSync(const Layout &layout, const Plan &plan, JobProgram &program,
                     std::vector<std::vector<Op>> &syncs);

// Writes every rank's program, or only `onlyRank`'s: one 1F1B iteration (schedule.cpp), its
// `syncs`, the optimizer step.
void emitPrograms(const Layout &layout, std::vector<std::vector<Op>> syncs,
                  std::optional<int> onlyRank, JobProgram &program);
// Upper bound of the ops emitPrograms writes for one stage replica's rank, before its syncs.
long long scheduleOpBound(const JobProgram &program, const StageReplica &replica);

} // namespace hetplan::runtime
