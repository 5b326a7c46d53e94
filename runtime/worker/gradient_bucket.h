#pragma once

#include <cstddef>

namespace hetplan::runtime {

// Gradient buckets of 32 Mi elements: 64 MiB of staging in bf16, 128 MiB in fp32. The largest
// all-reduce a gradient group carries at once (the backend's, and the pre-flight's size).
inline constexpr std::size_t kGradientBucketElements = std::size_t(1) << 25;

} // namespace hetplan::runtime
