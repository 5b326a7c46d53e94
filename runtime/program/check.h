#pragma once

#include "core/base/result.h"
#include "runtime/program/program.h"

namespace hetplan::runtime {

// Proves a JobProgram executable before any process starts: groups are well formed and every
// op names groups its rank belongs to; every send has its receive with the same shape; a
// symbolic interpreter runs all programs to completion with transfers as unbuffered
// rendezvous (the worst case) and collectives as barriers of all members, and reports a
// deadlock with the ranks and ops stuck; every pipeline covers every layer exactly once, every
// sample row of the global batch is computed exactly once per layer, every TP-split weight has
// exactly one owner per stage replica, and the gradient weights of every parameter sum to 1.
// Failures are ErrorKind::Internal: a program the compiler produced is wrong.
Status checkProgram(const JobProgram &program);

} // namespace hetplan::runtime
