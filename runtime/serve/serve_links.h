#pragma once

// The messages of one rank of a serving replica (docs/runtime.md, "Serving runs"): the TP
// all-reduces inside its stage (as training's), the stage leader's copy of what it received to
// the other TP ranks (HexiScale §3.2), activations from one stage leader to the next, and the
// sampled tokens from the last stage's leader back to the first's. Gloo over the job's groups
// here; tests may implement it in-process.

#include "core/base/result.h"
#include "runtime/comm/comm.h"
#include "runtime/model/tp_comm.h"
#include "runtime/program/program.h"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace hetplan::runtime {

// Where a rank sits in its replica (a plan's pipeline).
struct ServeRole
{
    int replica = 0;
    int stage = 0;
    int stages = 1;
    int tpDegree = 1;
    bool leader = true; // TP index 0: talks to the neighbouring stages

    bool first() const { return stage == 0; }
    bool last() const { return stage == stages - 1; }
};

ServeRole serveRole(const JobProgram &program, int rank);

class ServeLinks
{
public:
    virtual ~ServeLinks() = default;
    virtual TpComm &tp() = 0;
    // Leaders of consecutive stages.
    virtual Status sendToNext(const float *data, std::size_t count) = 0;
    virtual Status recvFromPrevious(float *data, std::size_t count) = 0;
    // The last stage's leader to the first's (tokens); only when the replica has 2+ stages.
    virtual Status sendToFirst(const float *data, std::size_t count) = 0;
    virtual Status recvFromLast(float *data, std::size_t count) = 0;
    // The stage leader's buffer to every TP rank of the stage; only when tpDegree > 1.
    virtual Status broadcastInStage(float *data, std::size_t count) = 0;
};

// The groups a serving job connects, the same list on every rank: the plan's TP and hop groups
// (program.h) and, per replica of 2+ stages, "serve/p<P>/return" between its last and first
// stage leaders.
std::vector<GroupSpec> serveGroups(const JobProgram &program);

// Over `comm` (connected to serveGroups(program); not owned).
std::unique_ptr<ServeLinks> glooServeLinks(Comm &comm, const JobProgram &program, int rank);

} // namespace hetplan::runtime
