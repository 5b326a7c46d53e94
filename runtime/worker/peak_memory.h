#pragma once

namespace hetplan::runtime {

// The process's resident-set high-water mark (getrusage), in GiB: a CPU rank's peak memory
// (MeasuredRank::peakMemoryGiB, docs/runtime.md "The measurement file").
double peakResidentGiB();

} // namespace hetplan::runtime
