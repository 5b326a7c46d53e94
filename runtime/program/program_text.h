#pragma once

#include "runtime/program/program.h"

#include <string>

namespace hetplan::runtime {

// One line per op, for logs and error messages: "forward mb 3 rows 12-15",
// "exchange [send activation mb 4 rows 16-19 to rank 5 via hop/p0/s0-s1/r0-r0; ...]".
std::string opText(const JobProgram &program, const Op &op);
std::string rowsText(SampleRange rows);
const char *payloadName(Payload payload);

} // namespace hetplan::runtime
