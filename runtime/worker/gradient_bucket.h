#pragma once

// kGradientBucketElements, the largest all-reduce a gradient group carries at once: one
// definition for the backends, the pre-flight and the cost model.
#include "core/cost/gradient_bucket.h"
