#pragma once

// The initial weights made on the device (docs/runtime.md, "The GPU backend"): model_init.h's
// counter-based values, element for element, so a GPU shard starts from the CPU model's weights
// without making them on one host thread and uploading them.

#include "runtime/cuda/model/kernels.h"
#include "runtime/model/counter_hash.h"

#include <cstdint>

namespace hetplan::runtime::cuda::kernels {

// value[i] = init.at(firstElement + i) and valueBf16[i] its bf16 rounding, i < n.
void initialWeights(const counter_hash::WeightInit &init, std::int64_t firstElement, std::size_t n,
                    float *value, Bf16 *valueBf16, Stream stream);

} // namespace hetplan::runtime::cuda::kernels
