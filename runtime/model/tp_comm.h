#pragma once

#include "core/base/result.h"

#include <cstddef>

namespace hetplan::runtime {

// The tensor-parallel all-reduce a shard needs inside a layer (Megatron-LM: after the row-parallel
// o and down GEMMs in forward, and of the input gradient of the column-parallel q/k/v and gate/up
// GEMMs in backward, before the norm's backward). The executor implements it with its TP group's
// communicator; tests implement it in-process. A failure (a dead peer, a timeout) comes back as an
// Error, which the shard returns from forward/backward unchanged.
class TpComm
{
public:
    virtual ~TpComm() = default;
    // In place: afterwards every rank of the group holds the element-wise sum of all ranks'
    // `data[0 … count)`. Every rank calls it the same number of times with the same counts.
    virtual Status allReduceSum(float *data, std::size_t count) = 0;
};

// TP degree 1: nothing to reduce.
class SoloTpComm final : public TpComm
{
public:
    Status allReduceSum(float *, std::size_t) override { return okStatus(); }
};

} // namespace hetplan::runtime
