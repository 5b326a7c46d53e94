#pragma once

#include "runtime/program/program.h"

namespace hetplan::runtime {

// In a serving plan, whether `rank` schedules its pipeline's requests and writes their
// records: the first stage's TP leader (docs/runtime.md, "Serving runs").
inline bool schedulesRequests(const Rank &rank)
{
    return rank.stage == 0 && rank.leader();
}

} // namespace hetplan::runtime
