#pragma once

// The passes of checkProgram (check.cpp), each in its own file.

#include "core/base/result.h"
#include "runtime/program/program.h"

#include <string>

namespace hetplan::runtime {

// Groups well formed, every op's group and peer one its rank may use (check.cpp).
Status checkStructure(const JobProgram &program);
// Every send has one receive of the same shape, and the other way round (check.cpp).
Status checkTransfersPair(const JobProgram &program);
// Runs every program symbolically to completion (interpreter.cpp).
Status runSymbolically(const JobProgram &program);
// Every pipeline holds every layer once, every stage replica its TP shards once, every sample
// row is computed once per layer (coverage_check.cpp).
Status checkCoverage(const JobProgram &program);
// Each rank's ops in an order its data allows: a forward after its input arrived, a send after
// what it sends was computed, gradient sync after the last backward (dataflow_check.cpp).
Status checkDataflow(const JobProgram &program);
// Every gradient element summed once with weights that add up to 1 (gradient_check.cpp).
Status checkGradientWeights(const JobProgram &program);

Error programError(std::string message);
// "<rank> '<op>': <why>"
Error opError(const JobProgram &program, int rank, const Op &op, const std::string &why);
// "rank 3 (pipeline 0, stage 1, replica 0, TP 1 of 2, A:3)"
std::string rankText(const JobProgram &program, int rank);

} // namespace hetplan::runtime
