#pragma once

#include "core/cost/stage_terms.h"

#include <memory>

namespace hetplan {

// HexiScale Appendix A as docs/cost-models.md states it (training). The paper assumes activation
// recomputation and bf16/fp16 elements throughout; the workload's recompute, optimizer and
// sharding settings do not enter its formulas. c is the peak tflops of the slowest GPU (the
// paper's c_d), not the achieved rate.
std::shared_ptr<const StageTerms> hexiScaleTrainingTerms();

} // namespace hetplan
