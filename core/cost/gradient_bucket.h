#pragma once

#include <cstddef>

namespace hetplan {

// Gradient buckets of 32 Mi elements: 64 MiB of staging in bf16, 128 MiB in fp32. The largest
// all-reduce a gradient group carries at once: the runtime's backends sum a group's gradients
// bucket by bucket (and the pre-flight checks at this size), and the `hetplan` cost model
// charges a ring's latency once per bucket (docs/cost-models.md, "`hetplan` — the realistic
// default", DP comm), as Megatron-LM's and PyTorch DDP's bucketed all-reduces pay it.
inline constexpr std::size_t kGradientBucketElements = std::size_t(1) << 25;

} // namespace hetplan
